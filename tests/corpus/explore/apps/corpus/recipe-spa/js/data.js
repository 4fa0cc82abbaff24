// Built-in recipes; user recipes are stored in localStorage next to these.
const BUILT_IN_RECIPES = [
  { id: 'pancakes', title: 'Fluffy Pancakes', emoji: '🥞', minutes: 20, servings: 4, tags: ['breakfast', 'vegetarian'],
    ingredients: [{ item: 'flour', qty: 200, unit: 'g' }, { item: 'milk', qty: 300, unit: 'ml' }, { item: 'eggs', qty: 2, unit: '' }, { item: 'sugar', qty: 2, unit: 'tbsp' }],
    steps: ['Whisk the dry ingredients.', 'Add milk and eggs, whisk until smooth.', 'Fry ladlefuls in a hot pan until bubbles form, then flip.'] },
  { id: 'carbonara', title: 'Spaghetti Carbonara', emoji: '🍝', minutes: 25, servings: 2, tags: ['dinner', 'pasta'],
    ingredients: [{ item: 'spaghetti', qty: 200, unit: 'g' }, { item: 'guanciale', qty: 100, unit: 'g' }, { item: 'egg yolks', qty: 3, unit: '' }, { item: 'pecorino', qty: 50, unit: 'g' }],
    steps: ['Boil the pasta.', 'Crisp the guanciale.', 'Mix yolks and cheese, toss with pasta off the heat.'] },
  { id: 'salad', title: 'Greek Salad', emoji: '🥗', minutes: 10, servings: 2, tags: ['lunch', 'vegetarian', 'quick'],
    ingredients: [{ item: 'tomatoes', qty: 3, unit: '' }, { item: 'cucumber', qty: 1, unit: '' }, { item: 'feta', qty: 150, unit: 'g' }, { item: 'olives', qty: 50, unit: 'g' }],
    steps: ['Chop the vegetables.', 'Add feta and olives.', 'Dress with olive oil and oregano.'] },
  { id: 'curry', title: 'Chickpea Curry', emoji: '🍛', minutes: 35, servings: 4, tags: ['dinner', 'vegan'],
    ingredients: [{ item: 'chickpeas', qty: 800, unit: 'g' }, { item: 'coconut milk', qty: 400, unit: 'ml' }, { item: 'onion', qty: 1, unit: '' }, { item: 'curry paste', qty: 3, unit: 'tbsp' }],
    steps: ['Soften the onion.', 'Fry the curry paste.', 'Add chickpeas and coconut milk; simmer 20 minutes.'] },
  { id: 'brownies', title: 'Fudgy Brownies', emoji: '🍫', minutes: 45, servings: 12, tags: ['dessert', 'vegetarian'],
    ingredients: [{ item: 'dark chocolate', qty: 200, unit: 'g' }, { item: 'butter', qty: 150, unit: 'g' }, { item: 'sugar', qty: 250, unit: 'g' }, { item: 'eggs', qty: 3, unit: '' }],
    steps: ['Melt chocolate and butter.', 'Whisk in sugar and eggs.', 'Fold in flour, bake 25 minutes at 180°C.'] },
  { id: 'smoothie', title: 'Berry Smoothie', emoji: '🥤', minutes: 5, servings: 1, tags: ['breakfast', 'vegan', 'quick'],
    ingredients: [{ item: 'berries', qty: 150, unit: 'g' }, { item: 'banana', qty: 1, unit: '' }, { item: 'oat milk', qty: 200, unit: 'ml' }],
    steps: ['Blend everything until smooth.'] }
];

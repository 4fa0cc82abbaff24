// Question bank. Each entry: category, question, answers, index of the correct answer.
const QUESTION_BANK = [
  { category: 'science', q: 'What is the chemical symbol for gold?', a: ['Ag', 'Au', 'Gd', 'Go'], correct: 1 },
  { category: 'science', q: 'How many planets are in our solar system?', a: ['7', '8', '9', '10'], correct: 1 },
  { category: 'science', q: 'What gas do plants absorb from the air?', a: ['Oxygen', 'Nitrogen', 'Carbon dioxide', 'Helium'], correct: 2 },
  { category: 'science', q: 'What is the hardest natural substance?', a: ['Quartz', 'Iron', 'Diamond', 'Granite'], correct: 2 },
  { category: 'science', q: 'Which organ pumps blood through the body?', a: ['Lungs', 'Heart', 'Liver', 'Kidney'], correct: 1 },
  { category: 'history', q: 'In which year did World War II end?', a: ['1943', '1944', '1945', '1946'], correct: 2 },
  { category: 'history', q: 'Who was the first President of the United States?', a: ['Lincoln', 'Jefferson', 'Washington', 'Adams'], correct: 2 },
  { category: 'history', q: 'The ancient city of Rome was built on how many hills?', a: ['Five', 'Seven', 'Nine', 'Twelve'], correct: 1 },
  { category: 'history', q: 'Which empire built Machu Picchu?', a: ['Aztec', 'Maya', 'Inca', 'Olmec'], correct: 2 },
  { category: 'history', q: 'The Berlin Wall fell in…', a: ['1987', '1989', '1991', '1993'], correct: 1 },
  { category: 'geography', q: 'What is the largest ocean?', a: ['Atlantic', 'Indian', 'Arctic', 'Pacific'], correct: 3 },
  { category: 'geography', q: 'Which country has the most people?', a: ['India', 'USA', 'China', 'Brazil'], correct: 0 },
  { category: 'geography', q: 'What is the capital of Australia?', a: ['Sydney', 'Melbourne', 'Canberra', 'Perth'], correct: 2 },
  { category: 'geography', q: 'The Sahara desert is on which continent?', a: ['Asia', 'Africa', 'Australia', 'South America'], correct: 1 },
  { category: 'geography', q: 'Which river is the longest?', a: ['Amazon', 'Nile', 'Yangtze', 'Mississippi'], correct: 1 }
];

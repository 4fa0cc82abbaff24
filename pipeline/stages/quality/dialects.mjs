// What ESLint's core does not know about the dialects apps are written in, for the quality
// stage's static tools (static.mjs), with Babel's parser: the parser plugins a unit needs,
// TypeScript with its types blanked out, a component script's top-level names (its
// template uses them) and the names JSX uses (<App />, <Icons.Star />), which ESLint's core
// no-unused-vars does not see. Pure: text in, text out; it never runs the app's code.

export const pluginsOf = (u) => (u.language === 'ts' ? (u.jsx ? ['typescript', 'jsx'] : ['typescript']) : ['jsx']);

// Its types blanked, every other character where it was.
// Only what TypeScript adds is blanked (annotations, type parameters and arguments,
// interfaces, type aliases, declarations, `as`/`satisfies`/`!`, modifiers, `implements`,
// type-only imports and exports); an enum becomes `var Name={}` padded to its length.
// Newlines stay, so ESLint's lines and columns are the file's.
const TYPE_ONLY = new Set(['TSTypeAnnotation', 'TSTypeParameterDeclaration', 'TSTypeParameterInstantiation',
  'TSInterfaceDeclaration', 'TSTypeAliasDeclaration', 'TSDeclareFunction', 'TSDeclareMethod', 'TSIndexSignature',
  'TSModuleDeclaration']);
const MODIFIERS = /\b(public|private|protected|readonly|abstract|override|declare)\b/g;

export function topNames(parser, u) {
  let ast;
  try {
    ast = parser.parse(u.text, { sourceType: 'module', errorRecovery: true, plugins: pluginsOf(u) });
  } catch {
    return [];
  }
  const names = [];
  const id = (node) => node && node.type === 'Identifier' && names.push(node.name);
  for (let node of ast.program.body) {
    if (node.type === 'ExportNamedDeclaration' && node.declaration) node = node.declaration;
    if (node.type === 'ImportDeclaration') node.specifiers.forEach((s) => id(s.local));
    else if (node.type === 'VariableDeclaration') {
      node.declarations.forEach((d) => {
        if (d.id.type === 'Identifier') id(d.id);
        else if (d.id.type === 'ObjectPattern') d.id.properties.forEach((p) => id(p.value || p.argument));
        else if (d.id.type === 'ArrayPattern') d.id.elements.forEach((e) => id(e));
      });
    } else if (node.type === 'FunctionDeclaration' || node.type === 'ClassDeclaration') id(node.id);
  }
  return names;
}

export function jsxNames(parser, u) {
  if (!/<[A-Za-z]/.test(u.text)) return [];
  let ast;
  try {
    ast = parser.parse(u.text, { sourceType: u.module ? 'module' : 'script', errorRecovery: true,
      allowReturnOutsideFunction: true, plugins: pluginsOf(u) });
  } catch {
    return [];
  }
  const names = new Set();
  (function walk(node) {
    if (!node || typeof node.type !== 'string') return;
    if (node.type === 'JSXOpeningElement') {
      let name = node.name;
      while (name && name.type === 'JSXMemberExpression') name = name.object;
      if (name && name.type === 'JSXIdentifier' && /^[A-Z_$]/.test(name.name)) names.add(name.name);
    }
    for (const key of Object.keys(node)) {
      if (key === 'loc' || key.endsWith('Comments')) continue;
      const v = node[key];
      if (Array.isArray(v)) v.forEach(walk); else if (v && typeof v.type === 'string') walk(v);
    }
  })(ast.program);
  return [...names];
}

export function stripTypes(parser, u) {
  let ast;
  try {
    ast = parser.parse(u.text, { sourceType: u.module ? 'module' : 'script', allowReturnOutsideFunction: true,
      plugins: pluginsOf(u) });
  } catch (err) {
    return { error: String(err.message || err), line: (err.loc && err.loc.line) || 1 };
  }
  const b = blanker(u.text);
  blankTypes(b, ast.program);
  return { text: b.chars.join('') };
}

// The text as characters, and ways to blank parts of it (newlines stay).
function blanker(text) {
  const chars = text.split('');
  const blank = (from, to) => { for (let i = from; i < to; i += 1) if (chars[i] !== '\n' && chars[i] !== '\r') chars[i] = ' '; };
  const blankWords = (from, to, pattern) => {
    const part = text.slice(from, to);
    for (const m of part.matchAll(pattern)) blank(from + m.index, from + m.index + m[0].length);
  };
  const blankUntil = (from, ch) => { // a "?" or "!" between a name and its annotation
    for (let i = from; i < text.length && /[\s?!]/.test(text[i]); i += 1) if (text[i] === ch) { blank(i, i + 1); return; }
  };
  return { text, chars, blank, blankWords, blankUntil };
}

// A node that is all type: an annotation, an interface, a type-only import or export, a declared member.
const typeOnly = (node) => TYPE_ONLY.has(node.type) || (node.type === 'ExportNamedDeclaration' && (node.exportKind === 'type'
    || (node.declaration && TYPE_ONLY.has(node.declaration.type))))
    || (node.type === 'ImportDeclaration' && node.importKind === 'type')
    || ((node.type === 'ClassProperty' || node.type === 'ClassMethod') && node.declare);

// The tree under `node` with what TypeScript adds blanked.
function blankTypes(b, node) {
  if (!node || typeof node.type !== 'string') return;
  if (typeOnly(node)) {
    b.blank(node.start, node.end);
    return;
  }
  if (blankTypedNode(b, node)) return;
  blankModifiers(b, node);
  for (const key of Object.keys(node)) {
    if (key === 'loc' || key === 'leadingComments' || key === 'trailingComments' || key === 'innerComments') continue;
    const v = node[key];
    if (Array.isArray(v)) v.forEach((c) => blankTypes(b, c)); else if (v && typeof v.type === 'string') blankTypes(b, v);
  }
}

// A node TypeScript made, or a type-only specifier: blanked (what it holds of JavaScript
// walked); false for any other node.
function blankTypedNode(b, node) {
  const { text, chars, blank } = b;
  switch (node.type) {
    case 'TSEnumDeclaration': {
      const name = node.id.name;
      blank(node.start, node.end);
      const head = `var ${name}={}`;
      for (let i = 0; i < head.length && node.start + i < node.end; i += 1) chars[node.start + i] = head[i];
      return true;
    }
    case 'ImportSpecifier': case 'ExportSpecifier':
      if (node.importKind === 'type' || node.exportKind === 'type') {
        blank(node.start, node.end);
        const after = text.slice(node.end).match(/^\s*,/);
        if (after) blank(node.end, node.end + after[0].length);
        return true;
      }
      return false;
    case 'TSAsExpression': case 'TSSatisfiesExpression': case 'TSNonNullExpression':
    {
      blankTypes(b, node.expression);
      // `(x) as T`: the expression's range stops inside its parentheses, which stay
      const from = node.expression.end + /^[\s)]*/.exec(text.slice(node.expression.end, node.end))[0].length;
      blank(from, node.end);
      return true;
    }
    case 'TSTypeAssertion':
      blank(node.start, node.expression.start);
      blankTypes(b, node.expression);
      return true;
    case 'TSParameterProperty':
      blank(node.start, node.parameter.start);
      blankTypes(b, node.parameter);
      return true;
    default:
      return false;
  }
}

// The TypeScript in a JavaScript node: `?` and `!` after names, modifiers, `abstract`, `implements`.
function blankModifiers(b, node) {
  const { text, blank, blankWords, blankUntil } = b;
  switch (node.type) {
    case 'Identifier':
      if (node.optional || node.typeAnnotation) blankUntil(node.start + node.name.length, '?');
      break;
    case 'ClassProperty': case 'ClassMethod': case 'ClassPrivateProperty': case 'ClassAccessorProperty':
      if (node.key && !node.computed) blankWords(node.start, node.key.start, MODIFIERS);
      if (node.optional) blankUntil(node.key.end, '?');
      if (node.definite) blankUntil(node.key.end, '!');
      break;
    case 'ClassDeclaration': case 'ClassExpression':
      if (node.abstract) blankWords(node.start, node.id ? node.id.start : node.body.start, /\babstract\b/g);
      if (node.implements && node.implements.length) {
        const at = text.lastIndexOf('implements', node.implements[0].start);
        blank(at, node.implements[node.implements.length - 1].end);
      }
      break;
    default:
  }
}

// Walk a nested structure with recursive generators and yield*.
const tree = {
  name: 'root',
  children: [
    { name: 'docs', children: [{ name: 'readme.md' }, { name: 'guide.md' }] },
    { name: 'src', children: [{ name: 'main.c' }, { name: 'lib', children: [{ name: 'util.c' }] }] },
    { name: 'LICENSE' },
  ],
};

function* walk(node, depth = 0) {
  yield { name: node.name, depth };
  for (const child of node.children ?? []) {
    yield* walk(child, depth + 1);
  }
}

function* leaves(node, path = []) {
  const here = [...path, node.name];
  if (!node.children) {
    yield here.join('/');
    return;
  }
  for (const child of node.children) yield* leaves(child, here);
}

function* concat(...iterables) {
  for (const it of iterables) yield* it;
}

function* delegateResult() {
  const inner = yield* (function* () {
    yield 'a';
    return 'inner-done';
  })();
  yield inner;
}

const lines = [];
for (const { name, depth } of walk(tree)) lines.push(`${'  '.repeat(depth)}${name}`);
console.log(lines.join('\n'));

return {
  count: lines.length,
  leaves: [...leaves(tree)],
  concat: [...concat([1, 2], 'ab', new Set([3]))],
  delegated: [...delegateResult()],
};

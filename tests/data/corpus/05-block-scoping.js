// let/const: each loop iteration gets its own binding.
const callbacks = [];
for (let i = 0; i < 4; i++) {
  callbacks.push(() => i * 10);
}

const labels = [];
for (const name of ['alpha', 'beta', 'gamma']) {
  labels.push(() => name.toUpperCase());
}

const byKey = {};
for (const key in { x: 1, y: 2, z: 3 }) {
  byKey[key] = () => `key ${key}`;
}

let total = 0;
{
  let total = 100;
  const bonus = 5;
  total += bonus;
  console.log(`inner total ${total}`);
}
console.log(`outer total ${total}`);

const shadow = 'outer';
function readShadow() {
  const shadow = 'inner';
  return shadow;
}

let j = 0;
const whileFns = [];
while (j < 3) {
  const captured = j;
  whileFns.push(() => captured);
  j++;
}

return {
  loop: callbacks.map((f) => f()),
  names: labels.map((f) => f()),
  keys: Object.keys(byKey).map((k) => byKey[k]()),
  whileFns: whileFns.map((f) => f()),
  shadow: [shadow, readShadow()],
};

// Long arrays are grouped into columns and cut after 100 items; holes show.
const squares = Array.from({ length: 120 }, (_, i) => i * i);
console.log(squares);

const words = 'the quick brown fox jumps over the lazy dog again and again'.split(' ');
console.log(words);

const sparse = [1, , 3];
sparse[7] = 8;
console.log(sparse, sparse.length);

const bytes = new Uint8Array([0, 1, 127, 128, 255]);
console.log(bytes, bytes.buffer);

const users = tools.users.list({ limit: 8 });
console.log(users.map((u) => u.id), users.map((u) => u.name));

return { squares: squares.length, words: words.length, sparse: sparse.length };

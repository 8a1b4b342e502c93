// A debounced search: only the last keystroke of a burst triggers a query.
function debounce(fn, wait) {
  let timer = null;
  return (...args) => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      fn(...args);
    }, wait);
  };
}

const queries = [];
const search = debounce((q) => {
  const res = tools.search({ q });
  queries.push(q);
  console.log(`searched "${q}": ${res.results.length} results`);
}, 20);

const typed = ["s", "sa", "san", "sand"];
for (const q of typed) search(q);
await new Promise((r) => setTimeout(r, 60));
search("sandbox");
await new Promise((r) => setTimeout(r, 60));
return { keystrokes: typed.length + 1, queries };

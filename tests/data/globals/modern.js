/* Roots only lowered code makes: generators (whose bodies run on engine
 * threads), async functions and generators, classes, named groups. */
function* gen() { yield 1; }
async function af() { await null; return 1; }
async function* ag() { yield 1; }
class K { #p = 1; static s = 2; m() { return this.#p; } }
const started = gen();
started.next();
roots.generator = started;
roots.fresh = gen();
roots.async = af();
roots.asyncGen = ag();
roots.instance = new K();
roots.named = /(?<y>\d+)/.exec('2024');
roots.namedRegExp = /(?<z>x)/;
roots.spread = [...[1, 2]];
roots.arrow = () => 1;

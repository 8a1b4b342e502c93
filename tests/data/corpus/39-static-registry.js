// A plugin registry built on static members.
class Plugin {
  static registry = new Map();
  static count = 0;

  static register(PluginClass) {
    Plugin.registry.set(PluginClass.id, PluginClass);
    Plugin.count += 1;
    return PluginClass;
  }

  static create(id, options) {
    const Cls = Plugin.registry.get(id);
    if (!Cls) throw new Error(`unknown plugin ${id}`);
    return new Cls(options);
  }
  constructor(options = {}) {
    this.options = { ...this.constructor.defaults, ...options };
  }

  run() { return `${this.constructor.id} ran`; }
}

class Uppercase extends Plugin {
  static id = 'upper';
  static defaults = { suffix: '' };
  run(input) { return input.toUpperCase() + this.options.suffix; }
}

class Lookup extends Plugin {
  static id = 'lookup';
  static defaults = { prefix: 'cfg' };
  run(input) {
    return tools.kv.get({ key: `${this.options.prefix}:${input}` });
  }
}

class Noop extends Plugin {
  static id = 'noop';
}
[Uppercase, Lookup, Noop].forEach(Plugin.register);

const outputs = [
  Plugin.create('upper', { suffix: '!' }).run('hello'),
  Plugin.create('lookup').run('theme'),
  Plugin.create('lookup', { prefix: 'env' }).run('mode'),
  Plugin.create('noop').run(),
];

let unknown = null;
try { Plugin.create('missing'); } catch (e) { unknown = e.message; }
console.log(outputs.join(' / '));

return {
  outputs,
  unknown,
  ids: [...Plugin.registry.keys()],
  count: Plugin.count,
  inherited: [Uppercase.count, Object.hasOwn(Uppercase, 'count'), Noop.defaults ?? null],
};

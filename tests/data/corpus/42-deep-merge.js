// Deep-merge configuration layers.
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function deepMerge(target, ...sources) {
  const out = { ...target };
  for (const source of sources) {
    for (const [key, value] of Object.entries(source ?? {})) {
      if (isPlainObject(value) && isPlainObject(out[key])) {
        out[key] = deepMerge(out[key], value);
      } else if (Array.isArray(value) && Array.isArray(out[key])) {
        out[key] = [...new Set([...out[key], ...value])];
      } else if (value !== undefined) {
        out[key] = value;
      }
    }
  }
  return out;
}

const defaults = {
  server: { host: '0.0.0.0', port: 80, tls: { enabled: false } },
  features: ['search'],
  logLevel: 'info',
};
const fromFile = tools.echo({ server: { port: 8080, tls: { enabled: true, cert: '/etc/cert.pem' } }, features: ['export'] });
const fromEnv = { logLevel: 'debug', server: { host: undefined }, features: ['search', 'beta'] };

const config = deepMerge(defaults, fromFile, fromEnv, null);

function diff(a, b, path = '') {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((k) => {
    const p = path ? `${path}.${k}` : k;
    if (isPlainObject(a[k]) && isPlainObject(b[k])) return diff(a[k], b[k], p);
    return JSON.stringify(a[k]) === JSON.stringify(b[k]) ? [] : [p];
  });
}

const changed = diff(defaults, config);
console.log(`changed: ${changed.join(', ')}`);

return { config, changed, untouched: defaults.server.port };

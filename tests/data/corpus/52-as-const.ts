// Constant tables with as const, satisfies and derived types.
const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

const COLORS = {
  debug: 'gray',
  info: 'blue',
  warn: 'yellow',
  error: 'red',
} as const satisfies Record<Level, string>;

interface Limits {
  maxItems: number;
  names: readonly string[];
}
const limits = { maxItems: 3, names: ['a', 'b'] } satisfies Limits;

type Entry = { level: Level; message: string };

function severity(level: Level): number {
  return LEVELS.indexOf(level);
}

const raw = tools.echo({
  entries: [
    { level: 'warn', message: 'disk 80%' },
    { level: 'debug', message: 'tick' },
    { level: 'error', message: 'disk full' },
    { level: 'info', message: 'started' },
  ],
}) as { entries: Entry[] };

const atLeast = (min: Level) => raw.entries.filter((e) => severity(e.level) >= severity(min));

const rendered = atLeast('info')
  .sort((a, b) => severity(b.level) - severity(a.level))
  .slice(0, limits.maxItems)
  .map((e) => `[${COLORS[e.level]}] ${e.level.toUpperCase()} ${e.message}`);

const point = { x: 1, y: 2 } as const;
const tuple = [point.x, point.y, 'z'] as const;

for (const line of rendered) console.log(line);

return { rendered, levels: [...LEVELS], tuple, names: limits.names, colorCount: Object.keys(COLORS).length };

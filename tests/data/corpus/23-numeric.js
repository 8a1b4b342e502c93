// Numeric separators, exponentiation and number formatting.
const budget = 1_000_000;
const fee = 2_500.75;
const mask = 0b1111_0000;
const color = 0xff_ff_00;
const octal = 0o7_7;

const squares = [1, 2, 3, 4].map((n) => n ** 2);
const cube = 3 ** 3;
const tower = 2 ** 3 ** 2;
const negative = (-2) ** 3;
let growth = 1.5;
growth **= 2;

const compound = (principal, rate, years) => principal * (1 + rate) ** years;
const savings = compound(10_000, 0.05, 3);

const sum = tools.math.add({ a: budget, b: fee });

const stats = [12.5, 7.25, 30, 0.75];
const mean = stats.reduce((a, b) => a + b, 0) / stats.length;

console.log(budget, mask, color, octal);
console.log(`savings ${savings.toFixed(2)}`);

return {
  budget, fee, mask, color, octal, squares, cube, tower, negative, growth,
  savings: Math.round(savings * 100) / 100,
  sum,
  mean: mean.toFixed(3),
  parsed: [parseInt('42px', 10), parseFloat('3.5kg'), Number('1e3'), Number.isInteger(5.0), Number.isNaN(NaN)],
  limits: [Number.MAX_SAFE_INTEGER > budget ** 2, Math.trunc(-4.7), Math.sign(-3), Math.hypot(3, 4)],
};

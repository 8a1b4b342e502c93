// Subclasses extend a base formatter with super calls.
class Formatter {
  constructor(name) {
    this.name = name;
  }
  format(value) {
    return `[${this.name}] ${value}`;
  }
  describe() {
    return `formatter ${this.name}`;
  }
  static create(name) {
    return new this(name);
  }
}

class UpperFormatter extends Formatter {
  constructor(name, suffix = '!') {
    super(name.toUpperCase());
    this.suffix = suffix;
  }
  format(value) {
    return super.format(String(value).toUpperCase()) + this.suffix;
  }
  describe() {
    return `${super.describe()} (upper)`;
  }
}

class JsonFormatter extends UpperFormatter {
  format(value) {
    return super.format(JSON.stringify(value));
  }
  get kind() {
    return 'json';
  }
}

const plain = Formatter.create('log');
const upper = new UpperFormatter('shout');
const json = JsonFormatter.create('data');
const user = tools.users.get({ id: 4 });

const lines = [plain.format('ready'), upper.format('ready'), json.format({ id: user.id })];
for (const l of lines) console.log(l);

return {
  lines,
  descriptions: [plain, upper, json].map((f) => f.describe()),
  kinds: [json.kind, json instanceof UpperFormatter, json instanceof Formatter, upper instanceof JsonFormatter],
  suffix: json.suffix,
  protoChain: Object.getPrototypeOf(JsonFormatter) === UpperFormatter,
};

// Private fields and methods hide a rate limiter's state.
class RateLimiter {
  #limit;
  #used = 0;
  #denied = [];
  static #created = 0;

  constructor(limit) {
    this.#limit = limit;
    RateLimiter.#created++;
  }

  #record(name) {
    this.#used++;
    return `${name}#${this.#used}`;
  }

  #remaining() {
    return this.#limit - this.#used;
  }

  call(name, args) {
    if (this.#remaining() <= 0) {
      this.#denied.push(name);
      return null;
    }
    const tag = this.#record(name);
    return { tag, result: tools.echo(args) };
  }

  get stats() {
    return { used: this.#used, remaining: this.#remaining(), denied: [...this.#denied] };
  }

  static get created() {
    return RateLimiter.#created;
  }

  static isLimiter(obj) {
    try {
      obj.#limit;
      return true;
    } catch {
      return false;
    }
  }
}

const limiter = new RateLimiter(2);
const results = ['a', 'b', 'c'].map((name) => limiter.call(name, { name }));
new RateLimiter(5);

return {
  results,
  stats: limiter.stats,
  created: RateLimiter.created,
  hidden: Object.keys(limiter),
  checks: [RateLimiter.isLimiter(limiter), RateLimiter.isLimiter({})],
};

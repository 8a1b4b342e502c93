// A traffic light controller with string enums and a transition table.
enum Light {
  Red = 'RED',
  Green = 'GREEN',
  Yellow = 'YELLOW',
  Off = 'OFF',
}

type Event = 'timer' | 'fault' | 'reset';
type Table = Record<Light, Partial<Record<Event, Light>>>;

const table: Table = {
  [Light.Red]: { timer: Light.Green, fault: Light.Off },
  [Light.Green]: { timer: Light.Yellow, fault: Light.Off },
  [Light.Yellow]: { timer: Light.Red, fault: Light.Off },
  [Light.Off]: { reset: Light.Red },
};

class Controller {
  private transitions = 0;
  private readonly visited: Light[] = [];

  constructor(private state: Light = Light.Red) {
    this.visited.push(state);
  }

  dispatch(event: Event): boolean {
    const next = table[this.state][event];
    if (next === undefined) return false;
    this.state = next;
    this.transitions++;
    this.visited.push(next);
    return true;
  }

  get current(): Light {
    return this.state;
  }

  report(): { state: Light; transitions: number; path: string } {
    return { state: this.state, transitions: this.transitions, path: this.visited.join('>') };
  }
}

const events = tools.echo({ events: ['timer', 'timer', 'reset', 'fault', 'timer', 'reset', 'timer'] }) as { events: Event[] };
const ctl = new Controller();
const accepted = events.events.map((e) => ctl.dispatch(e));

console.log(ctl.report().path);
return { ...ctl.report(), accepted, greenStart: new Controller(Light.Green).current };

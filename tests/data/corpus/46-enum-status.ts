// Numeric and string enums for job states.
enum Priority {
  Low,
  Normal,
  High = 10,
  Urgent,
}

enum Status {
  Queued = 'queued',
  Running = 'running',
  Done = 'done',
  Failed = 'failed',
}

const enum Flag {
  None = 0,
  Retry = 1 << 0,
  Notify = 1 << 1,
}

interface Job {
  name: string;
  priority: Priority;
  status: Status;
  flags: number;
}

const jobs: Job[] = [
  { name: 'index', priority: Priority.High, status: Status.Queued, flags: Flag.Retry },
  { name: 'email', priority: Priority.Low, status: Status.Done, flags: Flag.Notify | Flag.Retry },
  { name: 'backup', priority: Priority.Urgent, status: Status.Failed, flags: Flag.None },
  { name: 'report', priority: Priority.Normal, status: Status.Running, flags: Flag.Notify },
];

const ordered = [...jobs].sort((a, b) => b.priority - a.priority).map((j) => `${j.name}:${Priority[j.priority]}`);

function isFinished(status: Status): boolean {
  return status === Status.Done || status === Status.Failed;
}

const finished = jobs.filter((j) => isFinished(j.status)).map((j) => j.name);
const retrying = jobs.filter((j) => (j.flags & Flag.Retry) !== 0).map((j) => j.name);

const check = tools.echo({ status: Status.Running, priority: Priority.Normal }) as { status: Status; priority: Priority };

console.log(ordered.join(', '));

return {
  ordered,
  finished,
  retrying,
  values: [Priority.Low, Priority.Normal, Priority.High, Priority.Urgent],
  names: [Priority[0], Priority[11]],
  statusValues: Object.values(Status),
  matches: check.status === Status.Running && check.priority === Priority.Normal,
};

// Errors a model logs: the message and own fields it set.
const failures = [];
for (const message of ['timeout', 'quota']) {
  try {
    tools.fail({ message });
  } catch (e) {
    failures.push({ message: e.message, isError: e instanceof Error });
  }
}
console.log('failures:', failures);

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}
const e = new ApiError('not found', 404);
console.log({ name: e.name, message: e.message, status: e.status });
console.log('caught %s (%d)', e.message, e.status);
console.log(Object.keys(e), e instanceof ApiError, String(e));

return { failures: failures.length, status: e.status };

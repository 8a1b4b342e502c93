// Validate records with custom error classes.
class ValidationError extends Error {
  constructor(field, message) {
    super(`${field}: ${message}`);
    this.name = 'ValidationError';
    this.field = field;
  }
}

class MissingFieldError extends ValidationError {
  constructor(field) {
    super(field, 'is required');
    this.name = 'MissingFieldError';
  }
}

function validate(user) {
  for (const field of ['id', 'name', 'email']) {
    if (user[field] === undefined) throw new MissingFieldError(field);
  }
  if (!user.email.includes('@')) throw new ValidationError('email', 'must contain @');
  return true;
}

const candidates = [
  tools.users.get({ id: 1 }),
  { id: 2, name: 'nomail' },
  { id: 3, name: 'bad', email: 'bad.example.com' },
];

const outcomes = candidates.map((c) => {
  try {
    return { id: c.id, ok: validate(c) };
  } catch (e) {
    return {
      id: c.id,
      error: e.message,
      name: e.name,
      field: e.field,
      isValidation: e instanceof ValidationError,
      isMissing: e instanceof MissingFieldError,
      isError: e instanceof Error,
      text: String(e),
    };
  }
});

let toolError;
try {
  tools.fail({ message: 'service unavailable' });
} catch (e) {
  toolError = [e instanceof Error, e.message];
}

return { outcomes, toolError };

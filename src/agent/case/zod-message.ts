import type { z } from 'zod';

/** One line per problem: `fields.business_name: expected string, received number`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

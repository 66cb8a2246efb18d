import { z } from 'zod';

/** The query fields every paged REST list takes: the previous page's `cursor`, and `limit` (1 to 50). */
export const pageFields = {
  cursor: z.string().optional(),
  limit: z.coerce
    .number()
    .int('must be an integer')
    .min(1, 'must be between 1 and 50')
    .max(50, 'must be between 1 and 50')
    .optional(),
};

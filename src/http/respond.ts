import type { Response } from 'express';

/** The success envelope of docs/contract.md §4: success, optional data, message. */
export function ok(res: Response, data: unknown, message: string, status = 200): void {
  const body: Record<string, unknown> = { success: true };
  if (data !== undefined) body.data = data;
  body.message = message;
  res.status(status).json(body);
}

import type { FastifyReply } from 'fastify';
import type { Problem } from '../core/errors.js';

export function sendProblem(reply: FastifyReply, body: Problem, headers?: Record<string, string>): FastifyReply {
  if (headers) reply.headers(headers);
  return reply.code(body.status).type('application/problem+json').send(body);
}

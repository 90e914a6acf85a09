import type { FastifyBaseLogger } from 'fastify';

/** Fastify's logger (pino) is the one logger; infrastructure code takes it by this name. */
export type Logger = FastifyBaseLogger;

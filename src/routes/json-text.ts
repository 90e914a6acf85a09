import type { FastifyReply } from 'fastify';

/**
 * Sends JSON the database rendered already (db/json-page.ts): a string with a JSON content type
 * goes out as it is, without the response schema's serializer. The route keeps its response
 * schema for the API document; the tests check the pages against it.
 */
export const sendJsonText = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json);

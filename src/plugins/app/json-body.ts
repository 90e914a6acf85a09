import fp from 'fastify-plugin';

/**
 * JSON bodies only (any other type is a 415), parsed by Fastify's own parser, which guards against
 * prototype poisoning. An empty body with a JSON content type counts as no body: many clients send
 * the header on every request, DELETE included.
 */
export default fp(
  async (app) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body.toString();
      if (text === '') return done(null, undefined);
      void parseJson(request, text, done);
    });
  },
  { name: 'json-body' },
);

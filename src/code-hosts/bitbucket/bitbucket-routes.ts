import { hostConnectionRoutes } from '../../routes/host-connection-routes.js';
import { connectBody, connectionListResponse, connectionResponse } from './bitbucket-api-schemas.js';

/** Bitbucket connections (decisions.md §16): a repository, its token, and the webhook the service creates there. */
export default hostConnectionRoutes({
  tag: 'bitbucket',
  host: 'Bitbucket',
  what: 'repository',
  connections: (app) => app.services.bitbucket,
  schemas: { connectBody, connectionResponse, connectionListResponse },
  connectDescription:
    'Checks the token on the repository, creates the repository webhook (pull request and comment events) with a secret the service generates, and probes whether the token may read permissions (`commands`). ' +
    'Without `email`, `token` is a repository, project or workspace access token; with it, an Atlassian API token of a repository admin. The token is stored encrypted and never returned.',
});

import { hostConnectionRoutes } from '../../routes/host-connection-routes.js';
import { connectBody, connectionListResponse, connectionResponse } from './gitlab-api-schemas.js';

/** GitLab connections (decisions.md §12): a project, its access token, and the webhook the service creates there. */
export default hostConnectionRoutes({
  tag: 'gitlab',
  host: 'GitLab',
  what: 'project',
  connections: (app) => app.services.gitlab,
  schemas: { connectBody, connectionResponse, connectionListResponse },
  connectDescription:
    'Checks the token on the project, then creates the project webhook (merge request and note events) with a secret the service generates. The token needs the api scope and Maintainer access; it is stored encrypted and never returned.',
});

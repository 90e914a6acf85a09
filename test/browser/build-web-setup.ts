import { buildWeb } from '../../web/scripts/build-web.js';

/** The browser tests drive the built app, as `npm start` serves it: build it when its inputs changed. */
export default async function setup() {
  await buildWeb({ quiet: true });
}

import { serveBareJson } from './bare-json-server.js';

console.log(await serveBareJson());

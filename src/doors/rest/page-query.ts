/** The REST door's paged lists take the hub's page fields (kinds' REST reads take them too). */
export { pageFields } from '../../hub/page-query.js';

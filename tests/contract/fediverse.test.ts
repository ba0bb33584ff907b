import { fediverseSuite } from '../support/fediverse-suite';

// The fediverse's store and queue in DATA_DIR/fediverse.db (no Redis configured).
fediverseSuite('its store and queue in SQLite', async () => ({ env: {} }));

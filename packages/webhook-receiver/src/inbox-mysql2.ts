/**
 * The transactional inbox through `mysql2` (an optional peer dependency).
 *
 * @module inbox/mysql2
 */

export { type Mysql2ConnectionLike, type Mysql2PoolLike, mysql2Inbox } from './inbox/adapters/mysql2.js';

import { MYSQL_URL, mysqlAvailable } from '@kyc/test-support';
import mysql from 'mysql2/promise';
import { describe } from 'vitest';
import { mysql2Inbox } from '../src/inbox-mysql2.js';
import { inboxConformanceSuite } from './support/inbox-conformance.js';

describe.skipIf(!(await mysqlAvailable()))('mysql2 inbox (real MariaDB/MySQL)', () => {
  inboxConformanceSuite('mysql2', 'mysql', async () => {
    const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 20 });
    return {
      dialect: 'mysql',
      make: (options) => mysql2Inbox(pool, options),
      exec: async (tx, sql, params) => {
        await tx.query(sql, [...params]);
      },
      read: async (sql) => {
        const [rows] = await pool.query(sql);
        return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
      },
      close: () => pool.end(),
    };
  });
});

package mariadb

import "context"

// DataBytes returns InnoDB's pages of this database's tables and indexes,
// without the redo log and the system tablespace the datadir also holds:
//
//	SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE()
//
// InnoDB's figures are estimates until ANALYZE TABLE.
func (d *db) DataBytes(ctx context.Context) (int64, error) {
	var n int64
	err := d.sql.QueryRowContext(ctx, "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(&n)
	return n, classify(err)
}

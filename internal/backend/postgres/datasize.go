package postgres

import "context"

// DataBytes returns the size of this database's files (tables, indexes,
// TOAST), without the WAL the data folder also holds:
//
//	SELECT pg_database_size(current_database())
func (d *db) DataBytes(ctx context.Context) (int64, error) {
	c, err := d.connect(ctx)
	if err != nil {
		return 0, classify(err)
	}
	defer c.Close(ctx)
	var n int64
	if err := c.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		return 0, classify(err)
	}
	return n, nil
}

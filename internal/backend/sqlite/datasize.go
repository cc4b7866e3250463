package sqlite

import "context"

// DataBytes returns the database's pages, those still in the WAL included
// (the file alone lags until a checkpoint, and the WAL holds copies):
//
//	PRAGMA page_count; PRAGMA page_size
func (d *db) DataBytes(ctx context.Context) (int64, error) {
	var pages, size int64
	if err := d.admin.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, classify(err)
	}
	if err := d.admin.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return 0, classify(err)
	}
	return pages * size, nil
}

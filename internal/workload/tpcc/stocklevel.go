package tpcc

import "github.com/dbgauge/dbgauge/internal/backend"

// stockLevelStmts are Stock-Level's statements (clause 2.8.2).
type stockLevelStmts struct {
	slDistrict, slCount *backend.Stmt
}

// stockLevelStatements makes Stock-Level's statements for dialect d.
func stockLevelStatements(d backend.Dialect) stockLevelStmts {
	return stockLevelStmts{
		slDistrict: stmt(d, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"),
		slCount: stmt(d, "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? "+
			"AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?"),
	}
}

// stockLevel is clause 2.8: how many of the items of the terminal's
// district's last 20 orders are below a threshold in the home warehouse.
func (c *client) stockLevel() error {
	threshold := c.r.Int(10, 20)
	var next int64
	err := c.time(opSLDistrict, func() error {
		return notFound(c.c.QueryRow(c.ctx, c.st.slDistrict, []any{c.home, c.district}, &next), "district (%d, %d)", c.home, c.district)
	})
	if err != nil {
		return err
	}
	return c.time(opSLCount, func() error {
		var low int64
		return c.c.QueryRow(c.ctx, c.st.slCount, []any{c.home, c.district, next, next - 20, c.home, threshold}, &low)
	})
}

package zeo

import "github.com/dbgauge/dbgauge/internal/backend/zodb"

// LogRules are the kinds of trouble a managed ZEO server's log can show:
// zodb's, which zrs's servers share.
var LogRules = zodb.ServerLogRules

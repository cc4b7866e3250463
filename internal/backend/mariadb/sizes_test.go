package mariadb

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// TestSizeSettings: --cache and --page-size become InnoDB's variables, a
// --set of either that says otherwise is refused, and a knob not given
// leaves the variable as --set gave it.
func TestSizeSettings(t *testing.T) {
	settings := map[string]string{"innodb_page_size": "4096"}
	if err := SizeSettings(settings, backend.Options{CacheBytes: 1 << 27}); err != nil {
		t.Fatal(err)
	}
	if settings["innodb_buffer_pool_size"] != "134217728" || settings["innodb_page_size"] != "4096" {
		t.Errorf("settings %v", settings)
	}
	if err := SizeSettings(settings, backend.Options{PageSize: 16384}); err == nil {
		t.Error("--page-size 16384 and --set innodb_page_size=4096 agree")
	}
}

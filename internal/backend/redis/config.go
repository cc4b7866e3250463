package redis

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// userConfig is what CONFIG SET changed on a server of the user's for the
// run, set back once by restore (Close).
type userConfig struct {
	changed  []backend.Change
	restored bool
}

// restoreTimeout bounds setting back the parameters at Close, whatever
// ended the run: the run's context is over by then.
const restoreTimeout = 30 * time.Second

// aofWithin bounds the wait for the AOF rewrite that turning appendonly
// on starts: until it ends Redis does not write the AOF the policy fsyncs.
const aofWithin = time.Minute

// setConfig sets each of settings on a server of the user's with CONFIG
// SET, in name order, after reading what it was (CONFIG GET); a parameter
// already as asked is left alone. Turning appendonly on waits for the
// rewrite it starts. On an error it sets back what it had set.
//
//	CONFIG GET appendfsync
//	CONFIG SET appendfsync always
func setConfig(ctx context.Context, c *goredis.Client, settings map[string]string) (*userConfig, error) {
	u := &userConfig{}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		v := settings[k]
		was, err := configGet(ctx, c, k)
		if err != nil {
			u.restore(c)
			return nil, knob.Bad("give a parameter Redis has (CONFIG GET *), or use --db redis:managed", "--set %s=%s: CONFIG GET %s: %v", k, v, k, err)
		}
		if was == v {
			continue
		}
		if err := c.ConfigSet(ctx, k, v).Err(); err != nil {
			u.restore(c)
			return nil, knob.Bad("use --db redis:managed, or set it on your server yourself", "CONFIG SET %s %s: %v", k, v, err)
		}
		ch := backend.Change{Key: k, Was: was, Set: v}
		if now, err := configGet(ctx, c, k); err == nil {
			ch.Set = now
		}
		u.changed = append(u.changed, ch)
		if k == "appendonly" && v == "yes" {
			if err := aofReady(ctx, c); err != nil {
				u.restore(c)
				return nil, err
			}
		}
	}
	return u, nil
}

// configGet reads one parameter.
func configGet(ctx context.Context, c *goredis.Client, k string) (string, error) {
	m, err := c.ConfigGet(ctx, k).Result()
	if err != nil {
		return "", classify(err)
	}
	v, ok := m[k]
	if !ok {
		return "", fmt.Errorf("no parameter %s", k)
	}
	return v, nil
}

// aofReady waits, bounded, until the AOF rewrite that CONFIG SET appendonly
// yes started has ended (INFO persistence: none in progress or scheduled).
func aofReady(ctx context.Context, c *goredis.Client) error {
	wctx, cancel := context.WithTimeout(ctx, aofWithin)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last map[string]string
	for {
		s, err := c.Info(wctx, "persistence").Result()
		if err == nil {
			last = infoFields(s)
			if last["aof_enabled"] == "1" && last["aof_rewrite_in_progress"] == "0" && last["aof_rewrite_scheduled"] == "0" {
				return nil
			}
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("waited %s for the AOF rewrite that appendonly yes starts to end (INFO persistence: aof_rewrite_in_progress %s, aof_rewrite_scheduled %s): %w",
				aofWithin, last["aof_rewrite_in_progress"], last["aof_rewrite_scheduled"], wctx.Err())
		case <-tick.C:
		}
	}
}

// restore sets back, once and last set first, every parameter setConfig
// changed, each read back afterwards. A nil userConfig (a managed server)
// does nothing.
func (u *userConfig) restore(c *goredis.Client) {
	if u == nil || u.restored {
		return
	}
	u.restored = true
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	for i := len(u.changed) - 1; i >= 0; i-- {
		ch := &u.changed[i]
		if err := c.ConfigSet(ctx, ch.Key, ch.Was).Err(); err != nil {
			ch.Err = err.Error()
			continue
		}
		switch now, err := configGet(ctx, c, ch.Key); {
		case err != nil:
			ch.Err = "set back, but not read back: " + err.Error()
		case !strings.EqualFold(now, ch.Was):
			ch.Err = "set back, but reads back " + now
		default:
			ch.Restored = true
		}
	}
}

// Changes lists the parameters the run changed on a server of the user's;
// after Close, whether each was set back.
func (d *db) Changes() []backend.Change {
	if d.user == nil {
		return nil
	}
	return slices.Clone(d.user.changed)
}

var _ backend.Changer = (*db)(nil)

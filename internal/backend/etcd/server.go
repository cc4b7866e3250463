package etcd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/server"
)

// Member is one etcd server of a managed cluster: the kit's Instance (its
// client port is the Instance's) and its name and peer port.
type Member struct {
	*server.Instance
	Name     string // "m1", "m2", "m3"
	PeerPort int
}

// Cluster is a throwaway etcd cluster dbgauge started on loopback: one
// member or three, each a process of its own, as the etcd account when
// dbgauge runs as root.
type Cluster struct {
	Members []*Member
	bin     string
}

// ClusterConfig says where and how to start a cluster: the kit's Config,
// how many members, and etcd's flags (--name=value) beside those the kit
// decides.
type ClusterConfig struct {
	server.Config
	Members  int
	Settings map[string]string
}

// FindServer returns etcd's path, or says what to install.
func FindServer() (string, error) {
	if p, err := exec.LookPath("etcd"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/etcd"); err == nil {
		return "/usr/bin/etcd", nil
	}
	return "", errors.New("no etcd found: apt-get install etcd-server")
}

// readyWithin bounds the wait for a new cluster's leader.
const readyWithin = time.Minute

// Start starts a cluster of cfg.Members members on loopback, each on free
// client and peer ports with a data folder of its own (the first in the
// run's folder, the others beside it), and returns once every member says
// it is healthy (a leader elected, no alarm).
func Start(ctx context.Context, cfg ClusterConfig) (*Cluster, error) {
	bin, err := FindServer()
	if err != nil {
		return nil, err
	}
	first, err := server.New("etcd", cfg.Config, "etcd")
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin}
	for i := range max(cfg.Members, 1) {
		in := first
		if i > 0 {
			if in, err = first.Beside("m" + strconv.Itoa(i+1)); err != nil {
				_, _ = c.Stop()
				return nil, err
			}
		}
		peer, err := server.FreePort()
		if err != nil {
			_, _ = c.Stop()
			return nil, err
		}
		c.Members = append(c.Members, &Member{Instance: in, Name: "m" + strconv.Itoa(i+1), PeerPort: peer})
	}
	token := "dbgauge-" + server.Secret()[:12]
	for _, m := range c.Members {
		m.recipe(bin, c.initialCluster(), token, len(c.Members) == 1, server.Settings(cfg.Settings), filepath.Join(first.Dir, "etcd-"+m.Name+".log"))
		if err := m.Launch(ctx); err != nil {
			_, _ = c.Stop()
			return nil, err
		}
	}
	if err := c.healthy(ctx); err != nil {
		_, _ = c.Stop()
		return nil, err
	}
	return c, nil
}

// initialCluster is --initial-cluster: every member's name and peer URL.
func (c *Cluster) initialCluster() string {
	var parts []string
	for _, m := range c.Members {
		parts = append(parts, m.Name+"="+m.peerURL())
	}
	return strings.Join(parts, ",")
}

func (m *Member) peerURL() string { return "http://127.0.0.1:" + strconv.Itoa(m.PeerPort) }

// ClientURL is the member's client URL (gRPC and HTTP: /health,
// /metrics, /version).
func (m *Member) ClientURL() string { return "http://127.0.0.1:" + strconv.Itoa(m.Port) }

// recipe says how the kit starts a member: etcd with the cluster's flags
// and the run's (settings, as --name=value, which win), its log (zap, on
// its output) into log. A member alone is ready when healthy (its own
// leader); a member of three when its peer port listens: it serves
// clients only once a leader is elected, which needs the others running.
func (m *Member) recipe(bin, cluster, token string, alone bool, settings server.Settings, log string) {
	m.Recipe = server.Recipe{
		Command: func(port int) (server.Command, error) {
			url := "http://127.0.0.1:" + strconv.Itoa(port)
			flags := server.Settings{
				"name": m.Name, "data-dir": m.DataDir, "listen-client-urls": url, "advertise-client-urls": url,
				"listen-peer-urls": m.peerURL(), "initial-advertise-peer-urls": m.peerURL(),
				"initial-cluster": cluster, "initial-cluster-state": "new", "initial-cluster-token": token,
				"logger": "zap", "log-outputs": "stderr",
				// A unit of kv's load is one transaction of up to 10,000
				// records and 64 MiB (etcd's defaults: 128 operations, 1.5 MiB).
				"max-txn-ops": "100000", "max-request-bytes": strconv.Itoa(64 << 20),
			}.With(settings)
			args := flags.Render(func(k, v string) []string { return []string{"--" + k + "=" + v} })
			return server.Command{Bin: bin, Args: args}, nil
		},
		Ready: func(ctx context.Context) error {
			return m.WaitReady(ctx, 50*time.Millisecond, func() error {
				if alone {
					return m.Healthy(ctx)
				}
				c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(m.PeerPort), time.Second)
				if err == nil {
					err = c.Close()
				}
				return err
			})
		},
		Taken: server.AddressInUse,
		Stop:  syscall.SIGTERM,
		Log:   log,
	}
}

// get reads one of the member's HTTP endpoints, bounded.
func (m *Member) get(ctx context.Context, path string) ([]byte, error) {
	gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(gctx, http.MethodGet, m.ClientURL()+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return b, err
}

// Healthy asks the member's /health: a leader known, no alarm.
func (m *Member) Healthy(ctx context.Context) error {
	b, err := m.get(ctx, "/health")
	if err != nil {
		return err
	}
	var h struct{ Health string }
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	if h.Health != "true" {
		return fmt.Errorf("%s /health: %s", m.Name, strings.TrimSpace(string(b)))
	}
	return nil
}

// healthy waits, bounded, until every member is healthy.
func (c *Cluster) healthy(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, readyWithin)
	defer cancel()
	for _, m := range c.Members {
		var last error
		for last = m.Healthy(wctx); last != nil; last = m.Healthy(wctx) {
			select {
			case <-wctx.Done():
				return fmt.Errorf("waited %s for etcd member %s to be healthy (a leader elected): %w; its log: %s", readyWithin, m.Name, last, m.LogTail(5))
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}

// Stop stops every member cleanly (SIGTERM) and removes their folders
// (their logs stay); it returns how long the first member's stop took.
func (c *Cluster) Stop() (time.Duration, error) {
	ins := make([]*server.Instance, len(c.Members))
	for i, m := range c.Members {
		ins[i] = m.Instance
	}
	return server.StopAll(ins)
}

package nms

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// On key-value engines rows become records keyed by id (8 bytes, big endian,
// so that scans go in id order), as the seed's ndbm file held them.
const (
	tVSAT    = "vsat"
	tCU      = "cu"
	tChannel = "freq_channel"
	tMeta    = "dbgauge_meta"
)

type kvStore struct {
	c backend.KVConn
}

func key(id int64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(id)) }

func (s *kvStore) begin(ctx context.Context) error    { return s.c.Begin(ctx, true) }
func (s *kvStore) commit(ctx context.Context) error   { return s.c.Commit(ctx) }
func (s *kvStore) rollback(ctx context.Context) error { return s.c.Rollback(ctx) }
func (s *kvStore) close() error                       { return s.c.Close() }

func (s *kvStore) insertChannel(ctx context.Context, ch *channel) error {
	return s.c.Put(ctx, tChannel, key(ch.ID), encodeChannel(ch))
}

func (s *kvStore) deleteChannel(ctx context.Context, id int64) error {
	return s.c.Delete(ctx, tChannel, key(id))
}

// modify is the ndbm way: fetch the record, change it, store it back.
func (s *kvStore) modify(ctx context.Context, table string, id int64, u *update) error {
	k := key(id)
	v, ok, err := s.c.Get(ctx, table, k)
	if err != nil {
		return err
	}
	if !ok {
		return workload.Inconsistent("nms: %s %d is missing", table, id)
	}
	var t terminal
	if err := decodeTerminal(v, &t); err != nil {
		return workload.Inconsistent("nms: %s %d: %v", table, id, err)
	}
	t.Status, t.Oper, t.PowerDBm, t.LastChange, t.Note = u.Status, u.Oper, u.PowerDBm, u.LastChange, u.Note
	t.Updates++
	return s.c.Put(ctx, table, k, encodeTerminal(&t))
}

func (s *kvStore) updateVSAT(ctx context.Context, id int64, u *update) error {
	return s.modify(ctx, tVSAT, id, u)
}

func (s *kvStore) updateCU(ctx context.Context, id int64, u *update) error {
	return s.modify(ctx, tCU, id, u)
}

func (s *kvStore) datasetLines(ctx context.Context) (int, bool, error) {
	if err := s.c.CreateTable(ctx, tMeta); err != nil {
		return 0, false, err
	}
	if err := s.c.Begin(ctx, false); err != nil {
		return 0, false, err
	}
	defer s.c.Rollback(ctx)
	v, ok, err := s.c.Get(ctx, tMeta, []byte(metaLines))
	if err != nil || !ok {
		return 0, false, err
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil, nil
}

func (s *kvStore) rebuild(ctx context.Context, lines, channels int, g *generator) error {
	for _, t := range []string{tChannel, tCU, tVSAT} {
		if err := s.c.DropTable(ctx, t); err != nil {
			return err
		}
		if err := s.c.CreateTable(ctx, t); err != nil {
			return err
		}
	}
	return workload.InKVTx(ctx, s.c, func() error { return s.fill(ctx, lines, channels, g) })
}

func (s *kvStore) fill(ctx context.Context, lines, channels int, g *generator) error {
	for i := int64(1); i <= int64(lines); i++ {
		if err := s.c.Put(ctx, tVSAT, key(i), encodeTerminal(g.terminal("VSAT", i))); err != nil {
			return err
		}
		if err := s.c.Put(ctx, tCU, key(i), encodeTerminal(g.terminal("CU", i))); err != nil {
			return err
		}
	}
	for i := int64(1); i <= int64(channels); i++ {
		if err := s.insertChannel(ctx, g.channel(i)); err != nil {
			return err
		}
	}
	return s.c.Put(ctx, tMeta, []byte(metaLines), []byte(strconv.Itoa(lines)))
}

func (s *kvStore) tally(ctx context.Context, withOrphans bool) (tally, error) {
	var t tally
	if err := s.c.Begin(ctx, false); err != nil {
		return t, err
	}
	defer s.c.Rollback(ctx)
	sum := func(table string, n, updates *int64) error {
		return s.c.Scan(ctx, table, func(_, v []byte) error {
			var r terminal
			if err := decodeTerminal(v, &r); err != nil {
				return err
			}
			*n++
			*updates += r.Updates
			return nil
		})
	}
	if err := sum(tVSAT, &t.vsats, &t.vsatUpdates); err != nil {
		return t, err
	}
	if err := sum(tCU, &t.cus, &t.cuUpdates); err != nil {
		return t, err
	}
	var chans []channel
	err := s.c.Scan(ctx, tChannel, func(k, v []byte) error {
		var ch channel
		if err := decodeChannel(v, &ch); err != nil {
			return err
		}
		t.channels++
		t.maxChannel = max(t.maxChannel, ch.ID)
		if withOrphans {
			chans = append(chans, ch)
		}
		return nil
	})
	if err != nil {
		return t, err
	}
	for _, ch := range chans {
		for _, ref := range []struct {
			table string
			id    int64
		}{{tVSAT, ch.VSAT}, {tCU, ch.CU}} {
			_, ok, err := s.c.Get(ctx, ref.table, key(ref.id))
			if err != nil {
				return t, err
			}
			if !ok {
				t.orphans++
				break
			}
		}
	}
	return t, nil
}

func (s *kvStore) ownedChannels(ctx context.Context, clients, id int64) ([]int64, error) {
	if err := s.c.Begin(ctx, false); err != nil {
		return nil, err
	}
	defer s.c.Rollback(ctx)
	var ids []int64
	err := s.c.Scan(ctx, tChannel, func(k, _ []byte) error {
		if len(k) != 8 {
			return errors.New("nms: channel key is not 8 bytes")
		}
		if v := int64(binary.BigEndian.Uint64(k)); v%clients == id {
			ids = append(ids, v)
		}
		return nil
	})
	return ids, err
}

// Records: varint fields in a fixed order, strings prefixed by their length.

func encodeTerminal(t *terminal) []byte {
	b := make([]byte, 0, 64+len(t.Name)+len(t.Alarm)+len(t.Note))
	for _, v := range []int64{t.ID, t.Status, t.Admin, t.Oper, t.FreqHz, t.PowerDBm, t.Calls, t.Updates, t.LastChange} {
		b = binary.AppendVarint(b, v)
	}
	for _, s := range []string{t.Name, t.Alarm, t.Note} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

var errRecord = errors.New("nms: malformed record")

type reader struct {
	b   []byte
	err error
}

func (r *reader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) str() string {
	l, n := binary.Uvarint(r.b)
	if n <= 0 || uint64(len(r.b)-n) < l {
		r.err = errRecord
		return ""
	}
	s := string(r.b[n : n+int(l)])
	r.b = r.b[n+int(l):]
	return s
}

func decodeTerminal(b []byte, t *terminal) error {
	r := &reader{b: b}
	for _, p := range []*int64{&t.ID, &t.Status, &t.Admin, &t.Oper, &t.FreqHz, &t.PowerDBm, &t.Calls, &t.Updates, &t.LastChange} {
		*p = r.int()
	}
	t.Name, t.Alarm, t.Note = r.str(), r.str(), r.str()
	return r.err
}

func encodeChannel(c *channel) []byte {
	b := make([]byte, 0, 64)
	for _, v := range []int64{c.ID, c.VSAT, c.CU, c.FreqHz, c.BandwidthHz, c.PowerDBm, c.State, c.Created} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func decodeChannel(b []byte, c *channel) error {
	r := &reader{b: b}
	for _, p := range []*int64{&c.ID, &c.VSAT, &c.CU, &c.FreqHz, &c.BandwidthHz, &c.PowerDBm, &c.State, &c.Created} {
		*p = r.int()
	}
	return r.err
}

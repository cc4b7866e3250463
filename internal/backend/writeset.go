package backend

// WriteSet is a key-value transaction's writes, held until its commit by an
// engine that sees a transaction only then (Redis's MULTI/EXEC, etcd's
// Txn): the last write of each key, the keys in the order first written.
// The zero value is empty and ready.
type WriteSet struct {
	writes map[string]Write
	order  []string
}

// Write is one buffered write: a value, or a delete.
type Write struct {
	Value  []byte
	Delete bool
}

// Put buffers k = v.
func (s *WriteSet) Put(k string, v []byte) { s.add(k, Write{Value: v}) }

// Delete buffers the removal of k.
func (s *WriteSet) Delete(k string) { s.add(k, Write{Delete: true}) }

func (s *WriteSet) add(k string, w Write) {
	if s.writes == nil {
		s.writes = map[string]Write{}
	}
	if _, ok := s.writes[k]; !ok {
		s.order = append(s.order, k)
	}
	s.writes[k] = w
}

// Get returns the transaction's last write of k, if it wrote k.
func (s *WriteSet) Get(k string) (Write, bool) {
	w, ok := s.writes[k]
	return w, ok
}

// Len is how many keys were written.
func (s *WriteSet) Len() int { return len(s.order) }

// Keys returns the keys written, first written first; the caller must not
// change it.
func (s *WriteSet) Keys() []string { return s.order }

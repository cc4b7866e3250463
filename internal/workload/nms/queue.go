package nms

// queue is a client's active channels, oldest first, with an undo log so that
// a rolled-back transaction leaves it as the database has it.
type queue struct {
	ids  []int64
	head int
	undo []undoStep
}

type undoStep struct {
	pushed bool // true: undo a push to the back; false: undo a pop from the front
	id     int64
}

func newQueue(ids []int64) *queue { return &queue{ids: ids} }

func (q *queue) len() int { return len(q.ids) - q.head }

func (q *queue) push(id int64) {
	if q.head > 1024 && q.head > len(q.ids)/2 { // reclaim the consumed front
		q.ids = append(q.ids[:0], q.ids[q.head:]...)
		q.head = 0
	}
	q.ids = append(q.ids, id)
	q.undo = append(q.undo, undoStep{pushed: true, id: id})
}

func (q *queue) pop() (int64, bool) {
	if q.len() == 0 {
		return 0, false
	}
	id := q.ids[q.head]
	q.head++
	q.undo = append(q.undo, undoStep{id: id})
	return id, true
}

// commit forgets the undo log.
func (q *queue) commit() { q.undo = q.undo[:0] }

// forget ends a transaction whose commit's outcome is unknown (its
// connection died during it): the channels it set up and those it cleared
// may or may not be in the database, so the queue holds neither, and no
// later call clears one that is not there.
func (q *queue) forget() {
	pushed := map[int64]bool{}
	for _, s := range q.undo {
		if s.pushed {
			pushed[s.id] = true
		}
	}
	keep := q.ids[:q.head]
	for _, id := range q.ids[q.head:] {
		if !pushed[id] {
			keep = append(keep, id)
		}
	}
	q.ids = keep
	q.undo = q.undo[:0]
}

// rollback undoes every step since the last commit.
func (q *queue) rollback() {
	for i := len(q.undo) - 1; i >= 0; i-- {
		s := q.undo[i]
		if s.pushed {
			q.ids = q.ids[:len(q.ids)-1]
			continue
		}
		if q.head > 0 {
			q.head--
			q.ids[q.head] = s.id
		} else {
			q.ids = append([]int64{s.id}, q.ids...)
		}
	}
	q.undo = q.undo[:0]
}

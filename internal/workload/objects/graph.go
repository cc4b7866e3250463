package objects

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Kind is the class of a persistent object of the Indico graph (seed 003:
// "each Category has a list of Conference objects, each Conference has a
// number of contributions and a meeting room").
type Kind byte

// The kinds of object.
const (
	Category     Kind = 'K'
	Conference   Kind = 'C'
	Room         Kind = 'R'
	Contribution Kind = 'T'
)

func (k Kind) String() string {
	switch k {
	case Category:
		return "category"
	case Conference:
		return "conference"
	case Room:
		return "room"
	case Contribution:
		return "contribution"
	}
	return fmt.Sprintf("kind %q", byte(k))
}

// Object is one persistent object, stored as one record whose key is its
// oid (8 bytes, big endian), like a ZODB object's pickle under its oid.
type Object struct {
	Kind    Kind
	OID     uint64
	Parent  uint64 // a conference's category; a room's or contribution's conference
	Version uint32 // 0 when loaded, +1 at each update
	Start   int64  // unix seconds: a conference's or contribution's start
	End     int64
	Title   string
	Refs    []uint64 // a category's conferences; a conference's room, then contributions
	Pad     []byte   // the rest of the object's state (descriptions, ACLs…), to --object-bytes
}

// The record layout, little endian:
//
//	'O' 1 kind oid:8 parent:8 version:4 start:8 end:8
//	titleLen:2 title refs:4 ref:8… padLen:4 pad crc32:4
const (
	magic     = 'O'
	format    = 1
	fixedSize = 3 + 8 + 8 + 4 + 8 + 8 + 2 + 4 + 4 + 4
)

// ErrCorrupt is wrapped by Decode for a record that is not an object.
var ErrCorrupt = errors.New("not an object record")

// Size returns the encoded size of o.
func (o *Object) Size() int { return fixedSize + len(o.Title) + 8*len(o.Refs) + len(o.Pad) }

// Append appends o's record to b.
func (o *Object) Append(b []byte) []byte {
	start := len(b)
	b = append(b, magic, format, byte(o.Kind))
	b = binary.LittleEndian.AppendUint64(b, o.OID)
	b = binary.LittleEndian.AppendUint64(b, o.Parent)
	b = binary.LittleEndian.AppendUint32(b, o.Version)
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Start))
	b = binary.LittleEndian.AppendUint64(b, uint64(o.End))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(o.Title)))
	b = append(b, o.Title...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(o.Refs)))
	for _, r := range o.Refs {
		b = binary.LittleEndian.AppendUint64(b, r)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(o.Pad)))
	b = append(b, o.Pad...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// Decode reads a record into a new object (its Pad shares nothing with b).
func Decode(b []byte) (*Object, error) {
	bad := func(why string) (*Object, error) { return nil, fmt.Errorf("%w: %s", ErrCorrupt, why) }
	if len(b) < fixedSize {
		return bad(fmt.Sprintf("%d bytes", len(b)))
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return bad("checksum mismatch")
	}
	if body[0] != magic || body[1] != format {
		return bad("unknown header")
	}
	o := &Object{Kind: Kind(body[2])}
	p := body[3:]
	u64 := func() uint64 { v := binary.LittleEndian.Uint64(p); p = p[8:]; return v }
	o.OID, o.Parent = u64(), u64()
	o.Version = binary.LittleEndian.Uint32(p)
	p = p[4:]
	o.Start, o.End = int64(u64()), int64(u64())
	n := int(binary.LittleEndian.Uint16(p))
	p = p[2:]
	if len(p) < n+4 {
		return bad("short title")
	}
	o.Title, p = string(p[:n]), p[n:]
	refs := int(binary.LittleEndian.Uint32(p))
	p = p[4:]
	if refs < 0 || len(p) < 8*refs+4 {
		return bad("short references")
	}
	if refs > 0 {
		o.Refs = make([]uint64, refs)
		for i := range o.Refs {
			o.Refs[i] = u64()
		}
	}
	n = int(binary.LittleEndian.Uint32(p))
	p = p[4:]
	if len(p) != n {
		return bad("pad length")
	}
	o.Pad = append([]byte(nil), p...)
	switch o.Kind {
	case Category, Conference, Room, Contribution:
	default:
		return bad("unknown kind")
	}
	return o, nil
}

// key returns oid's key.
func key(oid uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), oid) }

// categoryBase is the first category oid: categories sit apart from the
// conference blocks, which grow as conferences are added.
const categoryBase = 1 << 62

// layout places the objects: conference n owns the block of oids
// [n·(2+C), (n+1)·(2+C)): the conference, its room, its C contributions.
type layout struct {
	contributions int
	categories    int64
}

func (l layout) block() uint64 { return uint64(2 + l.contributions) }

// conference returns conference n's oid.
func (l layout) conference(n int64) uint64 { return uint64(n) * l.block() }

// category returns the oid of the category conference n belongs to.
func (l layout) category(n int64) uint64 { return categoryBase + uint64(n%l.categories) }

// number returns the conference number of a conference oid.
func (l layout) number(oid uint64) int64 { return int64(oid / l.block()) }

// objectsOf builds conference n's objects: its contributions, its room,
// then the conference (written last, so that a committed conference's
// references are never dangling). pad is the bytes each object carries.
func (l layout) objectsOf(n int64, pad []byte) []*Object {
	c := l.conference(n)
	out := make([]*Object, 0, l.block())
	start := int64(1_300_000_000) + n*3600 // 2011 on, an hour apart
	refs := make([]uint64, 0, l.block()-1)
	refs = append(refs, c+1)
	for i := range l.contributions {
		oid := c + 2 + uint64(i)
		refs = append(refs, oid)
		out = append(out, &Object{Kind: Contribution, OID: oid, Parent: c, Start: start + int64(i)*900, End: start + int64(i+1)*900,
			Title: fmt.Sprintf("Contribution %d of conference %d", i+1, n), Pad: pad})
	}
	out = append(out, &Object{Kind: Room, OID: c + 1, Parent: c, Title: fmt.Sprintf("Room %d-R-%03d", 1+n%500, n%1000), Pad: pad})
	out = append(out, &Object{Kind: Conference, OID: c, Parent: l.category(n), Start: start, End: start + int64(l.contributions+1)*900,
		Title: fmt.Sprintf("Conference %d: workshop on detector physics", n), Refs: refs, Pad: pad})
	return out
}

// valid checks that o is the object expected at oid, and, for a
// conference, that its references are the block's room and contributions.
func (l layout) valid(oid uint64, o *Object) error {
	if o.OID != oid {
		return fmt.Errorf("the record of oid %d holds oid %d", oid, o.OID)
	}
	if oid >= categoryBase {
		if o.Kind != Category {
			return fmt.Errorf("oid %d is a %s, not a category", oid, o.Kind)
		}
		return nil
	}
	c := oid - oid%l.block()
	want := Contribution
	switch oid - c {
	case 0:
		want = Conference
	case 1:
		want = Room
	}
	if o.Kind != want {
		return fmt.Errorf("oid %d is a %s, not a %s", oid, o.Kind, want)
	}
	switch want {
	case Conference:
		if len(o.Refs) != int(l.block()-1) {
			return fmt.Errorf("conference %d has %d references, not %d", oid, len(o.Refs), l.block()-1)
		}
		for i, r := range o.Refs {
			if r != oid+1+uint64(i) {
				return fmt.Errorf("conference %d: reference %d is oid %d, not %d", oid, i, r, oid+1+uint64(i))
			}
		}
		if o.Parent != l.category(l.number(oid)) {
			return fmt.Errorf("conference %d: category %d, not %d", oid, o.Parent, l.category(l.number(oid)))
		}
	default:
		if o.Parent != c {
			return fmt.Errorf("%s %d belongs to %d, not to conference %d", o.Kind, oid, o.Parent, c)
		}
	}
	return nil
}

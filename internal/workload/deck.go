package workload

import "math/rand/v2"

// Deck deals unit kinds in exact proportions: a shuffled deck holding each
// kind as many times as its weight, reshuffled when empty. A short run gets
// the mix asked for, not a coin flip's approximation (TPC-C 5.2.4.2).
type Deck struct {
	cards []int
	next  int
	rng   *rand.Rand
	one   bool // every card is the same kind: no shuffle to pay for
}

// NewDeck returns a deck for the weights, shuffled with rng.
func NewDeck(units []Weighted, rng *rand.Rand) *Deck {
	d := &Deck{rng: rng}
	for i, u := range units {
		for range u.Weight {
			d.cards = append(d.cards, i)
		}
	}
	if len(d.cards) == 0 {
		d.cards = []int{0}
	}
	d.one = true
	for _, c := range d.cards {
		d.one = d.one && c == d.cards[0]
	}
	d.shuffle()
	return d
}

func (d *Deck) shuffle() {
	d.rng.Shuffle(len(d.cards), func(i, j int) { d.cards[i], d.cards[j] = d.cards[j], d.cards[i] })
	d.next = 0
}

// Deal returns the next unit kind.
func (d *Deck) Deal() int {
	if d.one {
		return d.cards[0]
	}
	if d.next == len(d.cards) {
		d.shuffle()
	}
	c := d.cards[d.next]
	d.next++
	return c
}

// NewRand returns a random source for (seed, stream). PCG's first outputs for
// seeds that differ in a few low bits are alike in their high bits (which
// IntN uses): both words are scrambled first (splitmix64), so that clients
// 0, 1, 2… and cycles 1, 2, 3… draw unrelated values.
func NewRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix(seed^0x6a09e667f3bcc908), splitmix(stream^splitmix(seed))))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

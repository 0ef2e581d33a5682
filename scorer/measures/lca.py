"""HEMKit's LCA augmentation (steps 2-6 of :func:`scorer.measures.hierarchical.lca_augmented_sets`)
for many documents at once, as numpy array operations.

Every step works on flat arrays of rows (one row per document and item), so the time goes
into a few dozen numpy calls per block of documents instead of Python code per document.
The sequential parts of the algorithm (the greedy choice of step 4, the registration of
step 6) are sequential within a document only: they loop over the *rank* of an item
within its document (at most a few dozen iterations), each iteration handling that item
of every document of the block at once.

The rules are those of :func:`scorer.measures.hierarchical.lca_augmented_sets`, restated on
rows where each function does its part; ``tests/test_lca_batch.py`` keeps the
straightforward per-document version and checks both agree on random DAGs and label sets.

Conventions: ``doc`` is a document's index within the block; node ids are shifted by one
in codes (``node + 1``) so that the dummy ancestor ``-1`` codes as 0; ``width`` is the
number of nodes plus one.  Paths are referred to by ``(path id, length)`` prefixes of the
:class:`PathTable`.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from scorer.measures.arrays import expand_ranges, run_starts, sorted_member, sorted_order, sorted_unique
from scorer.measures.dag import PathTable

BLOCK = 512  #: documents per block: the lookup tables stay in cache, the per-rank loops stay few


def augmented_sizes(table: PathTable, gold: tuple, pred: tuple, n_docs: int, n_nodes: int,
                    excluded: np.ndarray) -> np.ndarray:
    """Per document ``(|T'∩P'|, |T'|, |P'|)`` (an ``(n_docs, 3)`` array) of HEMKit's LCA
    augmentation of the most specific label sets ``gold`` and ``pred`` (``(documents,
    labels)`` pairs sorted by document then label), ``excluded`` nodes (sorted) not
    counted.  Documents are handled in blocks of :data:`BLOCK`."""
    sizes = np.zeros((n_docs, 3), dtype=np.int64)
    bounds = [np.searchsorted(side[0], np.arange(0, n_docs + BLOCK, BLOCK)) for side in (gold, pred)]
    for k, start in enumerate(range(0, n_docs, BLOCK)):
        stop = min(n_docs, start + BLOCK)
        g, p = (slice(b[k], b[k + 1]) for b in bounds)
        block = _Block(table, (gold[0][g] - start, gold[1][g]), (pred[0][p] - start, pred[1][p]),
                       stop - start, n_nodes)
        sizes[start:stop] = block.sizes(excluded)
    return sizes


def augmented_codes(table: PathTable, gold: tuple, pred: tuple, n_docs: int, n_nodes: int,
                    excluded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The augmented sets T' and P' of :func:`augmented_sizes` for few documents (one
    block), as sorted codes ``document * (n_nodes + 1) + node + 1``."""
    return _Block(table, gold, pred, n_docs, n_nodes).augmented_codes(excluded)


def _rank(groups: np.ndarray) -> np.ndarray:
    """For rows sorted by group: the position of each row within its group."""
    first = run_starts(groups)
    index = np.arange(len(groups))
    return index - np.maximum.accumulate(np.where(first, index, 0))


class _Block:
    """Steps 2-6 for the documents of one block (see the module doc)."""

    def __init__(self, table: PathTable, gold, pred, n_docs: int, n_nodes: int):
        self.t = table
        self.n_docs = n_docs
        self.width = n_nodes + 1
        self.gold, self.pred = gold, pred
        width = self.width
        self.gold_codes = gold[0] * width + gold[1] + 1
        self.pred_codes = pred[0] * width + pred[1] + 1
        self.common_codes = self.gold_codes[sorted_member(self.gold_codes, self.pred_codes)]
        self.gold_added: list = []   # (doc, path, length) rows added to T' (step 6)
        self.pred_added: list = []
        self._search()
        if len(self.hit_doc):
            self._link()
            self._choose_ancestors()
            self._candidates()
            self._choose_paths()
            self._augment()

    # ---- step 3 ------------------------------------------------------------------------
    def _search(self) -> None:
        """Step 3 for both sides of every document: the hits ``(doc, side, label, path,
        at, meet, m)`` (a label's own paths of minimal length ``at + m`` to the first node
        shared with the other side's paths) and the found rows ``(hit, other label,
        meeting entry)`` (the other labels holding ``meet`` at their smallest position m)."""
        t, width = self.t, self.width
        own_rows, other_rows = [], []
        for side, (own, other) in enumerate(((self.gold, self.pred), (self.pred, self.gold))):
            own_codes = own[0] * width + own[1] + 1
            only = ~sorted_member(own_codes, self.common_codes)
            active = np.zeros(self.n_docs, dtype=bool)
            active[own[0][only]] = True
            has_other = np.zeros(self.n_docs, dtype=bool)
            has_other[other[0]] = True
            active &= has_other
            searched = only & active[own[0]]
            own_rows.append((own[0][searched] * 2 + side, own[1][searched]))
            keep = active[other[0]]
            other_rows.append((other[0][keep] * 2 + side, other[1][keep]))
        own_ds, own_label = (np.concatenate(x) for x in zip(*own_rows))
        other_ds, other_label = (np.concatenate(x) for x in zip(*other_rows))
        # other side: entries (ds, label, entry) and per (ds, node) the smallest depth
        entry_owner, entry = expand_ranges(t.entry_start[other_label], t.entry_count[other_label])
        entry_ds, entry_label = other_ds[entry_owner], other_label[entry_owner]
        entry_code = entry_ds * width + t.entry_node[entry] + 1
        depth = t.entry_depth[entry]
        max_depth = int(depth.max()) + 1 if len(depth) else 1
        order = sorted_order((entry_code, None), (depth, max_depth))
        first = run_starts(entry_code[order])
        met_code, met_depth = entry_code[order][first], depth[order][first]
        entry_group = np.empty(len(order), dtype=np.int64)
        entry_group[order] = np.cumsum(first) - 1
        # own side: path instances (ds, label, path) and their nodes
        path_owner, path = expand_ranges(t.path_start[own_label], t.path_count[own_label])
        row_path, row = expand_ranges(t.node_start[path], t.length[path])
        code = (own_ds[path_owner] * width)[row_path] + t.nodes[row] + 1
        where = np.minimum(np.searchsorted(met_code, code), max(len(met_code) - 1, 0))
        on_other = met_code[where] == code if len(met_code) else np.zeros(len(code), dtype=bool)
        hit_rows = np.flatnonzero(on_other)
        first_hit = hit_rows[run_starts(row_path[hit_rows])]
        instance = row_path[first_hit]                       # path instances that meet
        at = first_hit - np.searchsorted(row_path, instance)
        m = met_depth[where[first_hit]]
        length = at + m
        owner = path_owner[instance]                          # own label instance
        group_start = run_starts(owner)
        shortest = np.minimum.reduceat(length, np.flatnonzero(group_start)) if len(length) else length
        keep = length == shortest[np.cumsum(group_start) - 1]
        self.hit_ds = own_ds[owner[keep]]
        self.hit_doc = self.hit_ds // 2
        self.hit_label = own_label[owner[keep]]
        self.hit_path = path[instance[keep]]
        self.hit_at = at[keep]
        self.hit_meet = t.nodes[row[first_hit[keep]]]
        self.hit_m = m[keep]
        self.hit_sum = t.sums[row[first_hit[keep]]]
        # found rows: the other side's entries at a hit's meet with depth m
        is_meet = np.zeros(len(met_code), dtype=bool)
        is_meet[where[first_hit[keep]]] = True
        eligible = np.flatnonzero((met_depth[entry_group] == depth) & is_meet[entry_group])
        eligible = eligible[sorted_order((entry_code[eligible], None), (entry_label[eligible], width))]
        eligible_code = entry_code[eligible]
        hit_code = self.hit_ds * width + self.hit_meet + 1
        lo = np.searchsorted(eligible_code, hit_code)
        counts = np.searchsorted(eligible_code, hit_code, side="right") - lo
        self.found_hit, found = expand_ranges(lo, counts)
        self.found_label = entry_label[eligible[found]]
        self.found_entry = entry[eligible[found]]

    # ---- registration (linked, ancestors, probable) --------------------------------------
    def _link(self) -> None:
        """The pairs ``(doc, meet, head)`` of ``linked`` (each hit links its label and the
        other labels found at its meet), unique, with each head's number of ancestors."""
        width = self.width
        doc = np.concatenate([self.hit_doc, self.hit_doc[self.found_hit]])
        meet = np.concatenate([self.hit_meet, self.hit_meet[self.found_hit]])
        head = np.concatenate([self.hit_label, self.found_label])
        codes = sorted_unique((doc * width + meet + 1) * width + head)
        self.link_meet_code = codes // width                 # doc * width + meet + 1
        self.link_head = codes % width
        self.link_doc = self.link_meet_code // width
        self.link_meet = self.link_meet_code % width - 1
        head_codes = self.link_doc * width + self.link_head + 1
        self.heads, self.link_head_id = np.unique(head_codes, return_inverse=True)

    # ---- step 4 -------------------------------------------------------------------------
    def _choose_ancestors(self) -> None:
        """Step 4: meets in the order (most heads first, then the largest id); the
        discarding pass, then the greedy choice, each looping over the rank of a meet
        within its document."""
        width = self.width
        meet_codes, meet_of_link, heads_per_meet = np.unique(self.link_meet_code, return_inverse=True,
                                                             return_counts=True)
        meet_doc = meet_codes // width
        meet_node = meet_codes % width - 1
        order = sorted_order((meet_doc, self.n_docs), (width - heads_per_meet, width + 1), (width - 1 - meet_node, width + 1))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = _rank(meet_doc[order])
        link_rank = rank[meet_of_link]
        by_rank = sorted_order((link_rank, None), (self.link_doc, self.n_docs), (self.link_head, width))
        bounds = np.searchsorted(link_rank[by_rank], np.arange(int(rank.max()) + 2))
        # discarding pass
        ancestors = np.bincount(self.link_head_id, minlength=len(self.heads))
        discarded = np.zeros(len(meet_codes), dtype=bool)
        for k in range(len(bounds) - 1):
            rows = by_rank[bounds[k]:bounds[k + 1]]
            meets = meet_of_link[rows]
            single = np.zeros(len(meet_codes), dtype=bool)
            single[meets[ancestors[self.link_head_id[rows]] == 1]] = True
            gone = ~single[meets]
            discarded[meets[gone]] = True
            ancestors[self.link_head_id[rows[gone]]] -= 1
        # greedy choice
        node_codes = sorted_unique(np.concatenate([self.gold_codes, self.pred_codes, meet_codes]))
        gold_nodes = sorted_member(node_codes, self.gold_codes)
        pred_nodes = sorted_member(node_codes, self.pred_codes)
        common = sorted_member(node_codes, self.common_codes)
        gold_done, pred_done = common.copy(), common.copy()
        done = np.bincount(self.common_codes // width, minlength=self.n_docs) * 2
        total = np.bincount(self.gold_codes // width, minlength=self.n_docs) + \
            np.bincount(self.pred_codes // width, minlength=self.n_docs)
        meet_node_id = np.searchsorted(node_codes, meet_codes)
        head_node_id = np.searchsorted(node_codes, self.link_doc * width + self.link_head + 1)
        gold_chosen = np.zeros(len(meet_codes), dtype=bool)
        pred_chosen = np.zeros(len(meet_codes), dtype=bool)
        stopped = np.zeros(self.n_docs, dtype=bool)
        for k in range(len(bounds) - 1):
            rows = by_rank[bounds[k]:bounds[k + 1]]
            docs = self.link_doc[rows]
            stopped[docs] |= done[docs] == total[docs]
            rows = rows[~stopped[docs] & ~discarded[meet_of_link[rows]]]
            meets = meet_of_link[rows]
            heads = head_node_id[rows]
            is_meet = self.link_head[rows] == meet_node[meets]
            for nodes, done_flags, chosen in ((gold_nodes, gold_done, gold_chosen),
                                              (pred_nodes, pred_done, pred_chosen)):
                takes = nodes[heads] & ~done_flags[heads]
                # the meet itself, as a head, is a node of the side once an earlier head took it
                before = np.zeros(len(meet_codes), dtype=bool)
                earlier = takes & (self.link_head[rows] < meet_node[meets])
                before[meets[earlier]] = True
                takes |= is_meet & before[meets] & ~done_flags[heads]
                done_flags[heads[takes]] = True
                np.add.at(done, self.link_doc[rows[takes]], 1)
                chosen[meets[takes]] = True
                nodes[meet_node_id[meets[takes]]] = True
        self.meet_codes = meet_codes
        self.chosen = gold_chosen | pred_chosen
        self.gold_node_codes = node_codes[gold_nodes]
        self.pred_node_codes = node_codes[pred_nodes]

    # ---- step 5 -------------------------------------------------------------------------
    def _candidates(self) -> None:
        """The candidates of every bucket ``(doc, side, label, other label)``: each found
        row expands to the places of its entry; a bucket's candidates sorted by id sum,
        ties in visiting order.  Columns: bucket, meet, own path prefix, other prefix."""
        t, width = self.t, self.width
        owner, place = expand_ranges(t.place_start[self.found_entry], t.place_count[self.found_entry])
        hit = self.found_hit[owner]
        id_sum = self.hit_sum[hit] + t.place_sum[place]
        bucket_code = (self.hit_ds[hit] * width + self.hit_label[hit]) * width + self.found_label[owner]
        buckets, bucket = np.unique(bucket_code, return_inverse=True)
        shift = int(id_sum.min()) if len(id_sum) else 0
        order = sorted_order((bucket, len(buckets)), (id_sum - shift, None))
        self.cand_bucket = bucket[order]
        self.cand_hit = hit[order]
        self.cand_their_path = t.place_path[place][order]
        self.cand_sum = id_sum[order]
        self.bucket_codes = buckets

    def _choose_paths(self) -> None:
        """Step 5: per bucket whose last candidate's meet was chosen, the best candidate
        among those whose meet was chosen (most nodes of the grown sets on its parts; on a
        tie the later one with a larger unused overlap than seen so far, see
        :func:`_best_of_tier`), registered under that last meet; the first registration of
        a head under a meet wins."""
        width = self.width
        hit = self.cand_hit
        meet_code = self.hit_doc[hit] * width + self.hit_meet[hit] + 1
        chosen = self.chosen[np.searchsorted(self.meet_codes, meet_code)]
        last = np.r_[self.cand_bucket[1:] != self.cand_bucket[:-1], True] if len(hit) else np.zeros(0, bool)
        kept_bucket = np.zeros(len(self.bucket_codes), dtype=bool)
        kept_bucket[self.cand_bucket[last & chosen]] = True
        rows = np.flatnonzero(kept_bucket[self.cand_bucket] & chosen)
        side = self.hit_ds[hit[rows]] % 2
        own = (self.hit_path[hit[rows]], self.hit_at[hit[rows]] + 1)
        their = (self.cand_their_path[rows], self.hit_m[hit[rows]] + 1)
        gold_part = tuple(np.where(side == 0, o, th) for o, th in zip(own, their))
        pred_part = tuple(np.where(side == 0, th, o) for o, th in zip(own, their))
        bucket = self.cand_bucket[rows]
        first = run_starts(bucket)
        several = np.flatnonzero(~first)
        contested = np.zeros(len(rows), dtype=bool)
        contested[several] = True
        contested[several - 1] = True
        best = first.copy()
        if contested.any():
            best = self._best_of_buckets(rows, bucket, contested, gold_part, pred_part, first)
        b = rows[best]
        doc = self.hit_doc[self.cand_hit[b]]
        last_meet = self._last_meets()[self.cand_bucket[b]]
        label = self.hit_label[self.cand_hit[b]]
        other = self.bucket_codes[self.cand_bucket[b]] % width
        side = self.hit_ds[self.cand_hit[b]] % 2
        gold_head, pred_head = np.where(side == 0, label, other), np.where(side == 0, other, label)
        # registrations in visiting order (side, label, other label; pred head first)
        n = len(b)
        reg_doc = np.repeat(doc, 2)
        reg_meet = np.repeat(last_meet, 2)
        reg_head = np.column_stack([pred_head, gold_head]).ravel()
        reg_pred = np.tile([True, False], n)
        reg_path = np.column_stack([pred_part[0][best], gold_part[0][best]]).ravel()
        reg_len = np.column_stack([pred_part[1][best], gold_part[1][best]]).ravel()
        visit = np.repeat(self.cand_bucket[b] * 2, 2) + np.tile([0, 1], n)  # buckets sort by (ds, label, other)
        order = sorted_order((reg_doc, self.n_docs), (reg_meet + 1, width), (reg_head, width), (visit, 2 * len(self.bucket_codes)))
        key = (reg_doc * width + reg_meet + 1)[order] * width + reg_head[order]
        order = order[run_starts(key)]
        self.rec_doc, self.rec_meet, self.rec_head = reg_doc[order], reg_meet[order], reg_head[order]
        self.rec_pred, self.rec_path, self.rec_len = reg_pred[order], reg_path[order], reg_len[order]

    def _last_meets(self) -> np.ndarray:
        """The meet of each bucket's last candidate."""
        hit = self.cand_hit
        last = np.r_[self.cand_bucket[1:] != self.cand_bucket[:-1], True]
        result = np.zeros(len(self.bucket_codes), dtype=np.int64)
        result[self.cand_bucket[last]] = self.hit_meet[hit[last]]
        return result

    def _best_of_buckets(self, rows, bucket, contested, gold_part, pred_part, first) -> np.ndarray:
        """The best candidate of each bucket (a mask over ``rows``): the first of a bucket
        with the most nodes of the grown sets on its parts, unless a later one of that
        score has an unused overlap > 0: then the first with the largest.  Both values
        depend on a candidate's parts only, and few parts are distinct (a part is shared
        by the candidates pairing it with each part of the other side): each is computed
        once per distinct ``(document, path, length)``."""
        doc = self.hit_doc[self.cand_hit[rows]]
        score = np.zeros(len(rows), dtype=np.int64)
        idx = np.flatnonzero(contested)
        for part, node_codes in ((gold_part, self.gold_node_codes), (pred_part, self.pred_node_codes)):
            score[idx] += self._per_distinct_part(doc[idx], part[0][idx], part[1][idx],
                                                  partial(self._nodes_in, node_codes))
        group_start = np.flatnonzero(first)
        top = np.maximum.reduceat(score, group_start) if len(score) else score
        group = np.cumsum(first) - 1
        tier = score == top[group]
        tier_index = np.flatnonzero(tier)
        tier_first = tier_index[run_starts(group[tier_index])]
        best = np.zeros(len(rows), dtype=bool)
        best[tier_first] = True
        later = tier & ~best
        if later.any():
            later_index = np.flatnonzero(later)
            probable = self._probable()
            unused = np.zeros(len(later_index), dtype=np.int64)
            for part, pairs in zip((gold_part, pred_part), probable):
                unused += self._per_distinct_part(doc[later_index], part[0][later_index], part[1][later_index],
                                                  partial(self._unused_overlap, pairs))
            positive = later_index[unused > 0]
            if len(positive):
                values = unused[unused > 0]
                g = group[positive]
                order = sorted_order((g, None), (int(values.max()) - values, None))
                winner = positive[order][run_starts(g[order])]
                best[tier_first[np.isin(group[tier_first], group[winner])]] = False
                best[winner] = True
        return best

    def _per_distinct_part(self, doc, path, length, function) -> np.ndarray:
        """``function(doc, path, length)`` (one value per part: the path prefix of that
        length, in that document) evaluated once per distinct part, for every part."""
        if not len(doc):
            return np.zeros(0, dtype=np.int64)
        code = (doc * len(self.t.length) + path) * (int(length.max()) + 1) + length
        order = np.argsort(code, kind="stable")  # timsort: the codes come in document order
        starts = run_starts(code[order])
        one = order[starts]                                # one row of each distinct part
        inverse = np.empty(len(code), dtype=np.int64)
        inverse[order] = np.cumsum(starts) - 1
        return function(doc[one], path[one], length[one])[inverse]

    def _prefix_codes(self, doc, path, length) -> tuple[np.ndarray, np.ndarray]:
        """``(owner, codes)``: the nodes of the first ``length`` nodes of each ``path`` as
        codes ``doc * width + node + 1`` of its document, with the index of their prefix."""
        owner, row = expand_ranges(self.t.node_start[path], length)
        return owner, doc[owner] * self.width + self.t.nodes[row] + 1

    def _nodes_in(self, node_codes, doc, path, length) -> np.ndarray:
        """Per part: how many of its nodes are in ``node_codes`` (sorted document codes)."""
        owner, codes = self._prefix_codes(doc, path, length)
        member = sorted_member(codes, node_codes)
        return np.bincount(owner, weights=member, minlength=len(doc)).astype(np.int64)

    def _unused_overlap(self, pairs, doc, path, length) -> np.ndarray:
        """Per part of one side: the largest |probable(x) ∩ part| over the searched labels
        x of that side other than the part's head (0 if none); probable(x) is the nodes of
        x's own parts of its hits, ``pairs`` those of the side (see :meth:`_probable`)."""
        width = self.width
        result = np.zeros(len(doc), dtype=np.int64)
        if not len(pairs[0]):
            return result
        owner, node_code = self._prefix_codes(doc, path, length)
        head = self.t.nodes[self.t.node_start[path]]
        starts = run_starts(pairs[0])
        codes, start = pairs[0][starts], np.flatnonzero(starts)
        where = np.minimum(np.searchsorted(codes, node_code), len(codes) - 1)
        size = np.diff(np.append(start, len(pairs[0])))
        which, match = expand_ranges(start[where], np.where(codes[where] == node_code, size[where], 0))
        part = owner[which]
        label = pairs[1][match]
        ok = label != head[part]
        part, label = part[ok], label[ok]
        if len(part):
            codes, counts = np.unique(part * width + label, return_counts=True)
            np.maximum.at(result, codes // width, counts)
        return result

    def _probable(self):
        """Per side (0 gold, 1 predicted): the unique ``(doc * width + node + 1, label)``
        rows of probable(label), sorted by code."""
        width = self.width
        owner, code = self._prefix_codes(self.hit_doc, self.hit_path, self.hit_at + 1)
        label = self.hit_label[owner]
        side = self.hit_ds[owner] % 2
        result = []
        for s in (0, 1):
            keep = side == s
            pairs = sorted_unique(code[keep] * width + label[keep])
            result.append((pairs // width, pairs % width))
        return result

    # ---- step 6 -------------------------------------------------------------------------
    def _augment(self) -> None:
        """Step 6: the chosen meets in ascending order (a loop over their rank within the
        document); each registered path of a head not yet linked is added to its side and
        links the head; the shortest path (then the smallest head) of the linked ones is
        kept in spare, added when the meet linked only heads of the other side."""
        width = self.width
        order = sorted_order((self.rec_doc, self.n_docs), (self.rec_meet + 1, width), (self.rec_head, width))
        doc, meet, head = self.rec_doc[order], self.rec_meet[order], self.rec_head[order]
        is_pred, path, length = self.rec_pred[order], self.rec_path[order], self.rec_len[order]
        meet_code = doc * width + meet + 1
        meet_start = run_starts(meet_code)
        meet_index = np.cumsum(meet_start) - 1
        rank = _rank(doc[meet_start])[meet_index]
        by_rank = np.argsort(rank, kind="stable")
        bounds = np.searchsorted(rank[by_rank], np.arange(int(rank.max()) + 2)) if len(rank) else [0]
        head_code = doc * width + head + 1
        heads, head_id = np.unique(head_code, return_inverse=True)
        gold_done_h = sorted_member(heads, self.common_codes)
        pred_done_h = gold_done_h.copy()
        n_meets = int(meet_index.max()) + 1 if len(meet_index) else 0
        added = np.zeros(len(head), dtype=bool)
        for k in range(len(bounds) - 1):
            rows = by_rank[bounds[k]:bounds[k + 1]]
            hid = head_id[rows]
            pred_rows = is_pred[rows]
            done = np.where(pred_rows, pred_done_h[hid], gold_done_h[hid])
            new = rows[~done]
            added[new] = True
            pred_done_h[hid[~done & pred_rows]] = True
            gold_done_h[hid[~done & ~pred_rows]] = True
            new_count = np.zeros((n_meets, 2), dtype=np.int64)
            np.add.at(new_count, (meet_index[new], is_pred[new].astype(np.int64)), 1)
            spare = rows[done]
            for side in (0, 1):
                candidates = spare[is_pred[spare] == bool(side)]
                if not len(candidates):
                    continue
                # the other side linked heads and this side none: add this side's spare
                needs = (new_count[meet_index[candidates], 1 - side] > 0) & (new_count[meet_index[candidates], side] == 0)
                candidates = candidates[needs]
                if not len(candidates):
                    continue
                pick = sorted_order((meet_index[candidates], None), (length[candidates], None), (head[candidates], width))
                candidates = candidates[pick]
                added[candidates[run_starts(meet_index[candidates])]] = True
        for flag, target in ((False, self.gold_added), (True, self.pred_added)):
            rows = np.flatnonzero(added & (is_pred == flag))
            target.append((doc[rows], path[rows], length[rows]))

    # ---- results ------------------------------------------------------------------------
    def augmented_codes(self, excluded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The sorted codes ``doc * width + node + 1`` of T' and of P' (G, P and the
        added paths), ``excluded`` nodes (sorted) left out."""
        width = self.width
        sets = []
        for codes, added in ((self.gold_codes, self.gold_added), (self.pred_codes, self.pred_added)):
            parts = [codes]
            for doc, path, length in added:
                parts.append(self._prefix_codes(doc, path, length)[1])
            codes = sorted_unique(np.concatenate(parts))
            if len(excluded):
                codes = codes[~sorted_member(codes % width - 1, excluded)]
            sets.append(codes)
        return sets[0], sets[1]

    def sizes(self, excluded: np.ndarray) -> np.ndarray:
        """Per document ``(|T'∩P'|, |T'|, |P'|)``, ``excluded`` nodes (sorted) not counted."""
        gold, pred = self.augmented_codes(excluded)
        both = gold[sorted_member(gold, pred)]
        return np.column_stack([np.bincount(c // self.width, minlength=self.n_docs) for c in (both, gold, pred)])

"""The offline lexical embedder: shape, determinism, blank texts, topic separation,
and agreement with a plain dictionary implementation of the documented algorithm."""

from __future__ import annotations

import itertools
import math
import os
import random
import re
import string
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkscope.engine.embed.lexical as lexical
from chunkscope.engine.embed import Embedder, LexicalEmbedder, make_embedder
from chunkscope.engine.embed.lexical import _tokenize, features, word_hash
from chunkscope.engine.textutil import STOPWORDS

ROOT = Path(__file__).resolve().parents[1]

SOURDOUGH = [
    "Sourdough bread starts with a starter, a culture of wild yeast and lactic acid bacteria "
    "living in flour and water. Feeding the starter every day with fresh flour and water keeps "
    "the yeast active and the sour flavour of the bread mild.",
    "A healthy sourdough starter doubles in size within a few hours of feeding. Bubbles all "
    "through the jar and a pleasant sour smell show that the wild yeast in the starter is ready "
    "to leaven a loaf of bread.",
    "Mix the flour and water first and let the dough rest for an hour. This rest, the "
    "autolyse, lets the flour absorb the water so gluten forms in the dough before the salt and "
    "the sourdough starter go in.",
    "Add the starter and the salt to the dough and squeeze them in by hand. The dough will feel "
    "shaggy and sticky at first, but the gluten in the dough strengthens as you work the flour "
    "and water together.",
    "During bulk fermentation, stretch and fold the dough every half hour. The folds build "
    "strength in the gluten and trap the gas the yeast produces, so the sourdough loaf rises "
    "well and the bread has an open crumb.",
    "Bulk fermentation is done when the dough has grown by half, feels airy and jiggles when the "
    "bowl is shaken. Cold kitchens slow the yeast in the dough; warm kitchens speed the "
    "fermentation of the sourdough.",
    "Shape the dough into a tight loaf, building tension on the surface with a bench scraper, "
    "then place the shaped dough seam side up in a floured basket so the loaf holds its shape "
    "while the yeast works.",
    "Proof the shaped loaf overnight in the fridge. The cold fermentation deepens the sour "
    "flavour of the sourdough bread and makes the dough firmer and easier to score before the "
    "loaf goes into the oven.",
    "Bake the sourdough loaf in a preheated Dutch oven at a high temperature. The lid traps "
    "steam, so the crust of the bread stays soft long enough for the dough to spring up in the "
    "oven.",
    "Remove the lid halfway through the bake so the crust of the loaf browns and crackles. Let "
    "the sourdough bread cool on a rack for an hour before slicing, or the crumb of the loaf "
    "will be gummy.",
]

KUBERNETES = [
    "Kubernetes networking gives every pod its own IP address, and any pod can reach any other "
    "pod in the cluster without network address translation between the nodes of the "
    "Kubernetes cluster.",
    "A container network interface plugin such as Calico, Cilium or Flannel implements the pod "
    "network of the cluster, wiring each pod's virtual ethernet device to the node's routing "
    "table and giving the pod its IP address.",
    "A Kubernetes service gives a stable virtual IP address and DNS name to a changing set of "
    "pods chosen by a label selector. kube-proxy programs iptables rules on every node of the "
    "cluster to route service traffic to the pods.",
    "ClusterIP services are reachable only inside the cluster; NodePort services open a port on "
    "every node; LoadBalancer services ask the cloud provider for an external load balancer "
    "that sends traffic to the service's pods.",
    "CoreDNS resolves service names such as api.default.svc.cluster.local to the ClusterIP "
    "address of the service, so a pod in the cluster finds another service by its DNS name "
    "rather than by IP address.",
    "An Ingress controller routes external HTTP and HTTPS traffic to services inside the "
    "Kubernetes cluster, using host names and URL paths, and terminates TLS before the traffic "
    "reaches the pods of each service.",
    "NetworkPolicy objects restrict which pods may talk to which: a default deny network policy "
    "blocks ingress traffic to the pods, and explicit network policies allow traffic from "
    "selected namespaces and ports of the cluster.",
    "Network policies are enforced by the CNI network plugin, not by Kubernetes itself, so a "
    "cluster whose network plugin lacks policy support silently ignores every NetworkPolicy "
    "that restricts traffic between pods.",
    "To debug pod networking, exec into a pod and test DNS resolution and service connectivity "
    "with nslookup and curl, then inspect the iptables rules kube-proxy wrote on the node for "
    "the service and its pods.",
    "A service mesh such as Istio or Linkerd adds a sidecar proxy to each pod, giving mutual TLS "
    "between services, retries and traffic metrics for the pods of the cluster without "
    "changing the application's network code.",
]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)  # rows are unit length


def test_satisfies_protocol_and_shape() -> None:
    emb = LexicalEmbedder(dim=256)
    assert isinstance(emb, Embedder)
    assert (emb.name, emb.dim) == ("lexical", 256)
    assert emb.contextual is True and emb.cacheable is False  # IDF is per call
    out = emb.embed(SOURDOUGH)
    assert out.shape == (len(SOURDOUGH), 256)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-5)
    assert emb.embed([]).shape == (0, 256)


def test_factory_builds_lexical_with_dim() -> None:
    emb = make_embedder("lexical", dim=128)
    assert isinstance(emb, LexicalEmbedder)
    assert emb.embed(["hello world"]).shape == (1, 128)


def test_features_unigrams_drop_stopwords_bigrams_keep_mixed_pairs() -> None:
    feats = features("The cat sat on the mat")
    assert "the" not in feats and "on" not in feats
    assert {"cat", "sat", "mat"} <= set(feats)
    assert "the cat" in feats and "the mat" in feats
    assert "on the" not in feats  # both stopwords


def test_blank_and_stopword_only_texts_are_zero_rows_without_nan() -> None:
    out = LexicalEmbedder().embed(["", "   \n\t", "the of and", "yeast and flour"])
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(out[:3], 0.0)
    assert np.linalg.norm(out[3]) == pytest.approx(1.0, rel=1e-5)
    only_blank = LexicalEmbedder().embed(["", " "])
    assert np.isfinite(only_blank).all() and not only_blank.any()


def test_deterministic_within_a_process() -> None:
    texts = SOURDOUGH + KUBERNETES
    a = LexicalEmbedder().embed(texts)
    b = LexicalEmbedder().embed(texts)
    np.testing.assert_array_equal(a, b)


_CHILD = """
import sys
import numpy as np
from chunkscope.engine.embed import LexicalEmbedder
texts = sys.stdin.read().split("\\x1e")
sys.stdout.write(LexicalEmbedder().embed(texts).tobytes().hex())
"""


def test_deterministic_across_processes_with_another_hash_seed() -> None:
    texts = SOURDOUGH + KUBERNETES
    here = LexicalEmbedder().embed(texts)
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input="\x1e".join(texts),
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    there = np.frombuffer(bytes.fromhex(result.stdout), dtype=np.float32).reshape(here.shape)
    np.testing.assert_array_equal(here, there)


def test_idf_is_fitted_on_the_call() -> None:
    emb = LexicalEmbedder()
    # "yeast" is shared by 2 of 3 texts, then by all 4: the more texts share a
    # word, the less it counts, so the same two texts grow less similar.
    few = emb.embed(["yeast bread", "yeast dough", "flour water"])
    many = emb.embed(["yeast bread", "yeast dough", "yeast flour", "yeast water"])
    assert cosine(few[0], few[1]) > cosine(many[0], many[1]) + 0.05
    assert cosine(many[0], many[1]) > 0.05


def test_term_frequency_is_sublinear() -> None:
    # With raw counts, fifty "pod"s would drown the one "network" (cosine ~0.01).
    out = LexicalEmbedder().embed([" ".join(["pod"] * 50) + " network", "network", "service"])
    assert cosine(out[0], out[1]) > 0.08


@pytest.mark.parametrize("dim", [512, 2048])
def test_separates_topics(dim: int) -> None:
    texts = SOURDOUGH + KUBERNETES  # two documents, concatenated
    out = LexicalEmbedder(dim).embed(texts)
    k = len(SOURDOUGH)
    within = [cosine(out[i], out[i + 1]) for i in range(len(texts) - 1) if i != k - 1]
    boundary = cosine(out[k - 1], out[k])
    cross = [cosine(out[i], out[j]) for i in range(k) for j in range(k, len(texts))]
    mean_within, mean_cross = float(np.mean(within)), float(np.mean(cross))
    # Unrelated texts score near 0: hash collisions add noise of about 1/sqrt(dim).
    # (The margins hold for 195 of 200 other hash salts at dim 512, all at 2048.)
    assert mean_within > 0.1
    assert mean_within - mean_cross > 0.08
    assert mean_within - boundary > 0.04
    assert abs(mean_cross) < 0.03  # signed hashing: collisions cancel on average
    # Nearly every text's nearest other text is about the same subject.
    sims = out @ out.T
    np.fill_diagonal(sims, -np.inf)
    nearest = sims.argmax(axis=1)
    assert sum((nearest[i] < k) == (i < k) for i in range(len(texts))) >= 18


def test_ten_thousand_texts_embed_quickly() -> None:
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)]
    texts = [" ".join(rng.choices(words, k=45))[:300] for _ in range(10_000)]
    emb = LexicalEmbedder()
    start = time.perf_counter()
    out = emb.embed(texts)
    elapsed = time.perf_counter() - start
    assert out.shape == (10_000, 512)
    assert elapsed < 5.0, f"10k texts took {elapsed:.2f} s"


def test_progress_reaches_total() -> None:
    calls: list[tuple[int, int]] = []
    LexicalEmbedder().embed(["a b c"] * 5000, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (5000, 5000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def reference_embed(texts: list[str], dim: int = 512, bigram_weight: float = 0.5) -> np.ndarray:
    """The module docstring's algorithm with dictionaries, one text at a time."""
    mask = (1 << 64) - 1

    def mix64(x: int) -> int:
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        return x ^ (x >> 31)

    bags: list[Counter[tuple[str, ...]]] = []
    for text in texts:
        words = re.findall(r"\w+", text.lower())
        bag: Counter[tuple[str, ...]] = Counter((w,) for w in words if w not in STOPWORDS)
        bag.update(
            (a, b) for a, b in itertools.pairwise(words) if a not in STOPWORDS or b not in STOPWORDS
        )
        bags.append(bag)
    df = Counter(feature for bag in bags for feature in bag)
    n = len(texts)
    out = np.zeros((n, dim), dtype=np.float64)
    for row, bag in enumerate(bags):
        for feature, tf in bag.items():
            if len(feature) == 1:
                h, scale = word_hash(feature[0]), 1.0
            else:
                a, b = map(word_hash, feature)
                h, scale = mix64((a * 0x9E3779B97F4A7C15 + b) & mask), bigram_weight
            idf = math.log((1 + n) / (1 + df[feature])) + 1
            sign = -1.0 if h >> 63 else 1.0
            out[row, h % dim] += (1 + math.log(tf)) * idf * scale * sign
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


# Words from a small vocabulary (so that texts share features), stopwords, digits,
# underscores, punctuation, case and a few non-ASCII letters.
_VOCAB = ["yeast", "Flour", "POD", "net_work", "x86", "the", "of", "and", "café", "naïve", "ß"]
_SEPARATORS = [" ", "  ", ", ", ".\n", "-", "/", "\t", "'", "—"]
texts_strategy = st.lists(
    st.lists(st.tuples(st.sampled_from(_VOCAB), st.sampled_from(_SEPARATORS)), max_size=25).map(
        lambda parts: "".join(w + sep for w, sep in parts)
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts_strategy, st.sampled_from([16, 512]))
def test_agrees_with_a_dictionary_implementation(texts: list[str], dim: int) -> None:
    got = LexicalEmbedder(dim).embed(texts)
    np.testing.assert_allclose(got, reference_embed(texts, dim), rtol=1e-5, atol=1e-6)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(max_codepoint=127), max_size=40), max_size=6))
def test_ascii_fast_path_finds_the_regex_words(texts: list[str]) -> None:
    """The words of the regex, in the text as the views show it (terminal escape
    sequences left out: walk 29, F5)."""
    from chunkscope.engine.textutil import without_escapes

    vocab, ids, lengths = _tokenize(texts, None)
    words = list(vocab)
    shown = [without_escapes(t) for t in texts]
    expected = [
        w
        for t, s in zip(texts, shown, strict=True)
        if t.strip()
        for w in re.findall(r"\w+", s.lower())
    ]
    assert [words[i].decode() for i in ids] == expected
    assert lengths.tolist() == [len(re.findall(r"\w+", s.lower())) for s in shown]


def test_key_overflow_fallback_gives_the_same_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past int64 keys, bigrams are numbered first (a slower path): same vectors."""
    texts = SOURDOUGH + KUBERNETES
    fast = LexicalEmbedder().embed(texts)
    monkeypatch.setattr(lexical, "_KEY_LIMIT", 0)
    np.testing.assert_array_equal(LexicalEmbedder().embed(texts), fast)


def test_blocks_of_texts_give_the_same_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sums per cell are built a block of texts at a time; tiny blocks change nothing."""
    texts = SOURDOUGH + KUBERNETES
    whole = LexicalEmbedder().embed(texts)
    monkeypatch.setattr(lexical, "_BLOCK_CELLS", 512 * 3)  # three texts per block
    monkeypatch.setattr(lexical, "_SLICE", 7)
    np.testing.assert_array_equal(LexicalEmbedder().embed(texts), whole)


def test_normalize_rows_in_blocks_is_the_whole_matrix_computation_bit_for_bit() -> None:
    """normalize_rows works a block of rows at a time (no temporary as large as the
    matrix); every row must come out exactly as the whole-matrix formula gives it,
    zero rows staying zero, in place when asked."""
    from chunkscope.engine.embed.base import _NORMALIZE_BLOCK_CELLS, normalize_rows

    rng = np.random.default_rng(7)
    dim = 96
    rows = 3 * (_NORMALIZE_BLOCK_CELLS // dim) + 5  # several blocks and a partial one
    m = (rng.standard_normal((rows, dim)) * rng.uniform(0.01, 100.0, (rows, 1))).astype(np.float32)
    m[[0, rows // 2, rows - 1]] = 0.0
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    expected = m.copy()
    np.divide(expected, norms, out=expected, where=norms > 0)

    got = normalize_rows(m)
    assert got.dtype == np.float32 and got.tobytes() == expected.tobytes()
    assert not np.shares_memory(got, m)
    same = normalize_rows(m, copy=False)
    assert same is m or np.shares_memory(same, m)
    assert m.tobytes() == expected.tobytes()
    assert not np.any(m[[0, rows // 2, rows - 1]])

"""Engine configuration: frozen dataclasses passed in by entry points.

Only entry points (CLI, GUI) read the environment or settings files; the engine takes these.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class IngestLimits:
    """Bounds that keep hostile or broken input from exhausting the machine."""

    max_file_bytes: int = 4 * 1024**3
    max_text_file_bytes: int = 64 * 1024**2
    max_archive_members: int = 20_000
    max_archive_total_bytes: int = 1024**3  # uncompressed
    max_archive_member_bytes: int = 32 * 1024**2
    max_compression_ratio: float = 200.0
    max_code_file_bytes: int = 2 * 1024**2
    # Each cue and each notes chunk is embedded: a million cues or 50 MB of notes would keep
    # the import busy for hours; refused with a reason instead. 50,000 cues is ~40 h of speech;
    # 8 MB of notes ~1.3 million words.
    max_subtitle_cues: int = 50_000
    max_notes_bytes: int = 8 * 1024**2
    # A URL import (outside input: a server may stream forever or go silent): the most it
    # downloads (what the announced length says, and what arrives), and how long the server
    # may send nothing before the download is stopped. Both end in a removed download.
    max_download_bytes: int = 4 * 1024**3
    download_stall_ms: int = 30_000


@dataclass(frozen=True, slots=True)
class ChunkingConfig:
    """Transcript windows on sentence boundaries, one sentence of overlap."""

    transcript_min_ms: int = 20_000
    transcript_max_ms: int = 45_000
    overlap_sentences: int = 1
    note_max_words: int = 180
    code_max_lines: int = 80


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Retrieval switches and sizes; every stage can be turned off for ablations."""

    fulltext: bool = True
    dense: bool = True
    rrf_k: int = 60
    candidate_factor: int = 10
    seek_refinement: bool = True
    passage_rank: bool = True  # a third fused list: candidates by their best sentence
    passage_follow: float = 0.25  # share of the next sentence's score a sentence gets
    # Multi-granularity: rescore the fused head by its best sentence (weights tuned on
    # TutorialVQA train; without a query vector the RRF order stands).
    sentences: bool = True
    # Score fusion: the head's prior is weighted BM25 and own similarity instead of its RRF
    # score. +0.010 on TutorialVQA and +0.006 on SciFact, but off: in a library of slides and
    # lectures it ranks every slide above the spoken answer (4.5x a slide's one similarity).
    score_fusion: bool = False
    # Weights and thresholds on similarity are the embedder's (its manifest's calibration:
    # each model spreads its cosines differently); None takes it, a number overrides it.
    fulltext_weight: float = 0.75  # BM25 over the query's best BM25
    window_weight: float | None = None  # the segment's own vector's similarity to the query
    sentence_weight: float | None = None  # closest sentence's similarity (own vector if untimed)
    seek_words: float | None = None  # in choosing a window's sentence: query words' weight
    sentence_words: float = 0.75  # the share of the query's term weight its best sentence holds
    dedup: bool = True  # overlapping windows that seek to the same moment are one hit
    neighbours: bool = False  # each hit carries the text before and after it in its file
    near_duplicates: float = 0.9  # Jaccard on words at or above which two hits are one (0: off)
    mmr: float = 0.0  # MMR lambda over the head (0: off; ~0.7 trades relevance for variety)
    enrich: bool = False  # long queries: KeyBERT keyphrases for the dense side only
    enrich_min_words: int = 12
    rerank: bool = True  # with a reranker installed: cross-encoder on the fused head
    rerank_top: int = 20
    rerank_budget_ms: float = 50.0  # pairs are scored only as far as this time pays for
    rerank_words: int = 48  # words of each candidate (around its best sentence) it reads
    gate: float | None = None  # early exit: best similarity below this, little word overlap
    gate_overlap: float = 0.5  # share of the query's term weight that overrides the gate
    snippet_words: int = 32
    hnsw_ef: int = 128


# The speech model each lecture gets by its language: tiny.en for English (fast), Whisper
# base for every other language (engine.importing.hearing says how a language is found).
AUTO_SPEECH_MODEL = "auto"


@dataclass(frozen=True, slots=True)
class MediaConfig:
    """Video and audio: speech recognition, scene cuts, on-screen text, slide links."""

    # AUTO_SPEECH_MODEL, or a registry name (``coursedex models list``): an English-only
    # (.en) one hears English lectures only, the others go to Whisper base.
    speech_model: str = AUTO_SPEECH_MODEL
    # The language of every file of an import (engine.languages code); None: each file's
    # own, detected (or set by the user for that file).
    language: str | None = None
    beam_size: int = 1  # 1 = greedy decoding (bench/speech_wer.py compares 5)
    screen_text: bool = True  # read text off video frames (and PDF pages without text)
    scene_threshold: float = 0.8  # luma + edges ContentDetector: slide change 1-20, noise <= 0.4
    min_scene_ms: int = 2_000
    thumbnail_width: int = 320
    link_slides: bool = True


@dataclass(frozen=True, slots=True)
class EngineConfig:
    threads: int = 2
    embedder: str = "all-minilm-l6-v2-int8"
    # The embedder a library switches to, everything embedded again, when a file in another
    # language arrives while its own reads English only (engine/library/meaning.py). None:
    # never switch (a benchmark that compares embedders; a user's own choice).
    multilingual_embedder: str | None = "multilingual-e5-small-int8"
    reranker: str | None = "ms-marco-minilm-l6-v2-int8"  # used when installed; None: never
    embed_context: bool = True  # embed a segment with its heading or file title (off: ablation)
    media: MediaConfig = field(default_factory=MediaConfig)
    limits: IngestLimits = field(default_factory=IngestLimits)
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    embed_batch_size: int = 32

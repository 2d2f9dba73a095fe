"""EASSE's Python API, module for module: code written for EASSE ports by changing the import.

==========================================  ==========================================
EASSE                                       samsa
==========================================  ==========================================
``easse.sari.corpus_sari``                  ``samsa.easse.sari.corpus_sari``
``easse.bleu.corpus_bleu``                  ``samsa.easse.bleu.corpus_bleu``
``easse.fkgl.corpus_fkgl``                  ``samsa.easse.fkgl.corpus_fkgl``
``easse.samsa.corpus_samsa``                ``samsa.easse.samsa.corpus_samsa``
``easse.compression.corpus_f1_token``       ``samsa.easse.compression.corpus_f1_token``
``easse.utils.resources.get_orig_sents``    ``samsa.easse.utils.resources.get_orig_sents``
``easse.utils.helpers.read_split_lines``    ``samsa.easse.utils.helpers.read_split_lines``
==========================================  ==========================================

Keyword arguments keep EASSE's names, defaults and meaning (``lowercase``,
``tokenizer`` in ``13a``/``intl``/``plain``/``none``, ``refs_sents`` as reference
streams, ``legacy``, ``use_f1_for_deletion``, ``use_paper_version``,
``smooth_method``, ``use_effective_order``, ``verbose``). The differences that remain are
listed in docs/easse_api.md (SAMSA parses with the built-in parser, not TUPA; the
``moses``/``penn`` tokenizers are not available). Models are built once per process.
"""

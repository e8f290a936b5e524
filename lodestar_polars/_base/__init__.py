"""What every capability shares and no metric owns: checks, sentences, progress, Arrow.

- :mod:`~lodestar_polars._base.validation`: the one input and option layer (frames in, column
  roles as names or expressions, every option's sentence, ``lp.InvalidParameterError``);
- :mod:`~lodestar_polars._base.deprecation`: the one decorator for renamed parameters;
- :mod:`~lodestar_polars._base.messages`: scikit-learn's sentences that several modules say;
- :mod:`~lodestar_polars._base.progress`: the progress display (``progress=True``);
- :mod:`~lodestar_polars._base.arrow`: the one place a pyarrow object becomes a Polars frame.

Nothing here imports a metric, the registry or a surface (evaluate, trec, report, compare):
``tests/test_layout.py`` checks it.
"""

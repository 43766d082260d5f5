"""The transactional output, a foundation: files that appear whole, together, or not at all.

Every file synthamp writes goes through this package; it knows nothing of privacy and
imports only the other foundations. The release, the audit, the figures and the jobs of
the command line use it.

``_io``
    atomic file output (a temporary file, then a rename), the output-path checks, the
    dataset manifest, the output modes, :class:`~synthamp._output._io.OutputTransaction`
    (outputs that appear together at the end, or none);
``_journal``
    the commit protocol's guards: a lock per destination, a journal per commit,
    roll-forward (or back) of a killed run's commit, trusted only when it is this user's;
``_owned``
    acting only on files this user's synthamp wrote (ownership, mode and inode checked
    on descriptors opened without following links);
``_signals``
    SIGINT, SIGTERM and SIGHUP held back process-wide while a commit renames or a run
    cleans up, then acted on;
``_paths``
    output paths that name a new file or folder, checked before any work.

The public names are re-exported by :mod:`synthamp.release` (``OutputTransaction``,
``atomic_write_text``, …), where users find them beside the writers of tables.
"""

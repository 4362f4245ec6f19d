try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while Python imports: no traceback, the status of Ctrl-C
    raise SystemExit(130) from None

raise SystemExit(main())

"""The in-app help (these pages and their pictures), installed as the package
``inspector.docs`` (setup.py maps this folder there). This file only lets an editable install
import the folder; read it through ``inspector.core.base.resources``."""

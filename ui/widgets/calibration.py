"""Accuracy page controls: put a fitted calibration into the scenario, see which options use one, stop using it."""

from __future__ import annotations

import datetime as dt

import streamlit as st

from economics import CalibrationProfile, apply_calibration, matching_options, saved_calibration
from ui import bands, state
from ui import format as fmt


def calibration_in_use() -> None:
    """Say which owned options use a calibration fitted to the user's runs, with a button to stop using it."""
    s = state.scenario()
    note = bands.calibration_note(s)
    if not note:
        st.caption("No calibration in use: every page uses the model's default efficiency factors.")
        return
    st.info(fmt.md_escape(note), icon=":material/tune:")
    if st.button("Stop using the calibration", key="calibration_clear", icon=":material/undo:"):
        state.update(apply_calibration(s, None))
        st.rerun()


def use_calibration(profile: CalibrationProfile, fitted_on: str) -> None:
    """Choose the owned options a fitted profile applies to and save it into the scenario on a button press."""
    s = state.scenario()
    saved = saved_calibration(profile, fitted_on, dt.datetime.now(dt.UTC).date())
    names = {o.id: o.name for o in s.owned_options}
    if not names:
        st.caption("This scenario has no owned or rented option to calibrate.")
        return
    default = list(matching_options(s, saved))
    chosen = st.multiselect(
        "Owned options to calibrate",
        list(names),
        default=default,
        format_func=lambda oid: names[oid],
        key="calibration_targets",
        help="Preselected: the options serving the runs' model on their GPU. The fitted factors replace the "
        "scenario's efficiency factors (MBU, MFU) for these options' throughput on every page.",
    )
    if st.button(
        "Use this calibration in the scenario", key="calibration_use", icon=":material/tune:", disabled=not chosen
    ):
        try:
            state.update(apply_calibration(s, saved, chosen))
        except ValueError as exc:
            st.error(f"Could not use the calibration: {fmt.md_escape(str(exc))}")
            return
        st.rerun()

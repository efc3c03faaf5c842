"""Sign-in for a team deployment: Streamlit's built-in OIDC (``st.login``/``st.user``), off unless configured.

On when ``.streamlit/secrets.toml`` has an ``[auth]`` section (``redirect_uri``, ``cookie_secret`` and the
provider's ``client_id``, ``client_secret``, ``server_metadata_url``; see README, "Run it for a team"). Then
saving and listing reviews need a signed-in user, and each save records that user (email, else name). Off
(the default, a laptop): the app runs open as before and a save records the name typed in the form.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError


def _auth_section() -> Any:
    try:
        return st.secrets.get("auth")
    except (FileNotFoundError, StreamlitSecretNotFoundError):
        return None


def sign_in_enabled() -> bool:
    """Whether sign-in is configured (an ``[auth]`` section in the secrets)."""
    return bool(_auth_section())


def signed_in_user() -> str | None:
    """The signed-in user's email (else name), or None when nobody is signed in or sign-in is off."""
    if not sign_in_enabled():
        return None
    user = st.user
    if not user.get("is_logged_in", False):
        return None
    identity = user.get("email") or user.get("name") or user.get("sub")
    return str(identity) if identity else None


def require_user(action: str) -> tuple[bool, str | None]:
    """``(allowed, user)`` for an action on reviews. With sign-in on and nobody signed in, shows why and a
    sign-in button and returns ``(False, None)``; with sign-in off, ``(True, None)``."""
    if not sign_in_enabled():
        return True, None
    user = signed_in_user()
    if user is not None:
        return True, user
    st.info(f"Sign in to {action}: reviews on this server are shared by a team.", icon=":material/lock:")
    st.button("Sign in", key=f"sign_in_{action.replace(' ', '_')}", on_click=st.login, icon=":material/login:")
    return False, None

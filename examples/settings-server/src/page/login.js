// The sign-in form: posts JSON (a cross-site form cannot) and shows the server's reason on failure.
document.getElementById('signInForm').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = document.getElementById('error');
  error.textContent = '';
  const response = await fetch('/api/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: document.getElementById('usernameInput').value,
      password: document.getElementById('passwordInput').value,
    }),
  });
  if (response.ok) {
    window.location.href = '/settings';
    return;
  }
  const body = await response.json().catch(() => ({}));
  error.textContent = body?.error?.message || 'Wrong username or password.';
});

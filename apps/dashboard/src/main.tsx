import { render } from 'preact';
import { restore } from './api/session';
import { App } from './app';
import './styles.css';

const root = document.getElementById('app') as HTMLElement;
render(<App ready={false} />, root);
// A refresh cookie from an earlier sign-in brings the session back without asking for the password.
void restore().finally(() => {
  render(<App ready={true} />, root);
  document.body.dataset.ready = 'true';
});

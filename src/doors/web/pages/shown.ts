import type { Html } from '../html.js';
import type { LiveOn } from '../layout.js';

/** A page as a route renders it: its title, its main part, and whether it refreshes live. */
export interface Shown {
  title: string;
  main: Html;
  live?: LiveOn;
  /** Which view of the page script runs on it. */
  view?: 'signin' | 'inbox';
}

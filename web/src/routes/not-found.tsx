import { Link } from '@tanstack/react-router';

export function NotFoundPage() {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1>Page not found</h1>
        <p>There is no page at this address.</p>
        <Link to="/" className="button">
          Go to the overview
        </Link>
      </div>
    </main>
  );
}

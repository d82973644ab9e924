import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from './api/queries';
import { SHARED_PREFIX } from './App';
import { router } from './router';
import { SessionProvider } from './session';
import './styles.css';

// A share link's page is for people outside the account: it reads no session at all.
const sharedPage = window.location.pathname.startsWith(`${import.meta.env.BASE_URL.replace(/\/$/, '')}${SHARED_PREFIX}`);

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {sharedPage ? (
        <RouterProvider router={router} />
      ) : (
        <SessionProvider>
          <RouterProvider router={router} />
        </SessionProvider>
      )}
    </QueryClientProvider>
  </StrictMode>,
);

import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/dropzone/styles.css';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from './api/queries';
import { router } from './router';
import './styles.css';
import { contrastVariables, theme } from './theme';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    {/* Dark or light as the system is set: the person chose it there already. */}
    <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={contrastVariables}>
      <ModalsProvider>
        <Notifications />
        <QueryClientProvider client={queryClient}>
          {/* The session is App's: a share link's page is outside it. */}
          <RouterProvider router={router} />
        </QueryClientProvider>
      </ModalsProvider>
    </MantineProvider>
  </StrictMode>,
);
